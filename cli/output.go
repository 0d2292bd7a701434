package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

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

func (p *printer) bold(s string) string  { return p.paint("1", s) }
func (p *printer) dim(s string) string   { return p.paint("2", s) }
func (p *printer) green(s string) string { return p.paint("32", s) }
func (p *printer) yellow(s string) string {
	return p.paint("33", s)
}
func (p *printer) red(s string) string { return p.paint("31", s) }

// state colours a room or member state by how actionable it is.
func (p *printer) state(s string) string {
	switch s {
	case "owned", "active", "holder":
		return p.green(s)
	case "reserved", "idle", "away":
		return s
	case "stale_owner", "dormant", "inactive":
		return p.yellow(s)
	case "owner_gone", "recipient_gone", "gone", "closed":
		return p.red(s)
	}
	return s
}

// table writes rows aligned in columns under a header. Widths count what
// a terminal shows, so colour codes in a cell do not shift the columns.
func (p *printer) table(header []string, rows [][]string) {
	widths := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], visibleWidth(c))
			}
		}
	}
	line := func(cells []string, paint func(string) string) {
		var b strings.Builder
		for i, c := range cells {
			if i < len(cells)-1 {
				c += strings.Repeat(" ", widths[i]-visibleWidth(c)+2)
			}
			b.WriteString(paint(c))
		}
		fmt.Fprintln(p.w, strings.TrimRight(b.String(), " "))
	}
	line(header, func(c string) string { return p.bold(strings.TrimRight(c, " ")) + c[len(strings.TrimRight(c, " ")):] })
	for _, r := range rows {
		line(r, func(c string) string { return c })
	}
}

// visibleWidth is the number of characters of s a terminal shows: runes,
// without ANSI colour sequences.
func visibleWidth(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case esc:
			esc = r != 'm'
		case r == '\x1b':
			esc = true
		default:
			n++
		}
	}
	return n
}

// ago says how long ago t was, coarsely, for tables.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
