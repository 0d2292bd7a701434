package cli

import (
	"encoding/json"
	"io"
	"os"

	"github.com/stickhq/stick/render"
	"golang.org/x/term"
)

// printer writes a command's output: JSON with --json, otherwise text with
// colours when the output is a terminal and NO_COLOR is unset.
type printer struct {
	w     io.Writer
	json  bool
	color bool
}

func newPrinter(w io.Writer, asJSON bool) *printer {
	return &printer{w: w, json: asJSON, color: !asJSON && isTerminal(w) && getenv("NO_COLOR") == ""}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

// JSON writes v as indented JSON.
func (p *printer) JSON(v any) error {
	enc := json.NewEncoder(p.w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// JSONLine writes v as one line of JSON, for streams.
func (p *printer) JSONLine(v any) error {
	return json.NewEncoder(p.w).Encode(v)
}

// paint wraps s in an ANSI colour when colours are on.
func (p *printer) paint(code, s string) string {
	if !p.color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Bold, Dim, Warn and State make the printer the render.Style of its
// output: ANSI bold, dim, yellow and the colours of states on a terminal
// with colours, nothing otherwise.

// Bold makes s bold.
func (p *printer) Bold(s string) string { return p.paint("1", s) }

// Dim makes s dim.
func (p *printer) Dim(s string) string { return p.paint("2", s) }

// Warn makes s yellow.
func (p *printer) Warn(s string) string { return p.paint("33", s) }

func (p *printer) green(s string) string { return p.paint("32", s) }
func (p *printer) red(s string) string   { return p.paint("31", s) }

// State colours a room or member state by how actionable it is.
func (p *printer) State(s string) string {
	switch s {
	case "owned", "active", "holder":
		return p.green(s)
	case "reserved", "idle", "away":
		return s
	case "stale_owner", "dormant", "inactive":
		return p.Warn(s)
	case "owner_gone", "recipient_gone", "gone", "closed":
		return p.red(s)
	}
	return s
}

// table writes rows aligned in columns under a header (render.WriteTable).
func (p *printer) table(header []string, rows [][]string) { render.WriteTable(p.w, p, header, rows) }
