package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/internal/linediff"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

func newDocEdit(agent *string) *cobra.Command {
	var asJSON, allowEmpty bool
	var roomValue string
	cmd := &cobra.Command{
		Use:   "edit [path | --room ROOM]",
		Short: "Edit the room's document in $VISUAL or $EDITOR; saves only if nobody wrote it meanwhile",
		Long: `Edit the room's document: the current version is written to a temporary file,
$VISUAL (else $EDITOR, else vi; notepad on Windows) opens it, and when the
editor exits successfully the file is saved as the next version. The variable
may carry arguments, as in EDITOR="code --wait". A file left as it was saves
nothing. A file saved empty (or blank) aborts the edit and saves nothing, as an
empty commit message does in git; --allow-empty saves it, emptying the document.

The save succeeds only if the document is still at the version the edit started
from. If another member saved in the meantime, nothing is saved: your text is
kept in a file whose path is printed, with who wrote which version since and
their change as a diff; run 'stick doc edit' again and re-apply your change.
With --json all of that is the JSON on standard output, and standard error has
only the error and its hint. Writing needs membership ('stick join') and an
open room; --room edits the document of an open room named by its id or its
name instead of the room of a path.

Exit status: 0 saved or nothing changed, 5 version conflict (nothing saved,
your text kept), 1 any other error (the editor failed, the file was saved
empty, not a member, ...).`,
		Example: "  stick doc edit\n" +
			"  EDITOR=\"code --wait\" stick doc edit\n" +
			"  stick doc edit ~/src/app --json\n" +
			"  stick doc edit --allow-empty   # save an empty file to empty the document\n" +
			"  stick doc edit --room release-1.4-review",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completePath,
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return inTarget(cmd.Context(), *agent, t, false, func(s *session, r stick.RoomSummary) error {
				return editDoc(cmd, s, r, newDocEditOptions(cmd, args, asJSON, allowEmpty))
			})
		},
	}
	addJSON(cmd, &asJSON)
	addActRoomFlag(cmd, &roomValue)
	cmd.Flags().BoolVar(&allowEmpty, "allow-empty", false, "save the file even if it is empty, emptying the document (without it an empty file aborts the edit)")
	return cmd
}

// docEditOptions are the flags of one 'stick doc edit', and what the hints
// need to name the same room and member again.
type docEditOptions struct {
	asJSON, allowEmpty bool
	// path is the path argument, absolute so that a command using it works
	// from any directory, and quoted for a shell (hintQuote); "" when none
	// was given. With --room it is "--room" and the value, quoted.
	path string
	// agent is the --agent value, quoted for a shell; "" when none was given.
	agent string
}

// newDocEditOptions returns the options of the running 'stick doc edit'.
func newDocEditOptions(cmd *cobra.Command, args []string, asJSON, allowEmpty bool) docEditOptions {
	o := docEditOptions{asJSON: asJSON, allowEmpty: allowEmpty}
	if len(args) > 0 {
		path := args[0]
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		o.path = hintQuote(path)
	}
	if f := cmd.Flag("room"); f != nil && f.Changed {
		o.path = "--room " + hintQuote(f.Value.String())
	}
	if f := cmd.Flag("agent"); f != nil && f.Changed {
		o.agent = hintQuote(f.Value.String())
	}
	return o
}

// hintQuote quotes s for a shell when it needs quoting, in double quotes
// where they suffice, so that a command reads well inside the single quotes
// a hint puts around it: run 'stick doc edit "/src/my app"' again.
func hintQuote(s string) string {
	q := shellQuote(s)
	if q == s || strings.ContainsAny(s, "\"$`\\!") {
		return q
	}
	return `"` + s + `"`
}

// again is the command line that starts the edit over: the same room, as
// the same member.
func (o docEditOptions) again() string {
	line := "stick doc edit"
	if o.path != "" {
		line += " " + o.path
	}
	if o.agent != "" {
		line += " --agent " + o.agent
	}
	return line
}

// read is the command line that prints the same room's document.
func (o docEditOptions) read() string {
	if o.path == "" {
		return "stick doc"
	}
	return "stick doc " + o.path
}

// docEdit is what 'stick doc edit --json' prints.
type docEdit struct {
	RoomID string `json:"room_id"`
	// Outcome is saved, unchanged or conflict.
	Outcome string `json:"outcome"`
	// StartedFrom is the version the edit started from.
	StartedFrom int64 `json:"started_from_version"`
	// Document is the version saved, or the current one when nothing was.
	Document stick.DocVersion `json:"document"`
	// KeptFile holds the edited text when it was not saved.
	KeptFile string `json:"kept_file,omitempty"`
	// Meanwhile are the versions others saved since StartedFrom.
	Meanwhile []stick.DocVersion `json:"meanwhile,omitempty"`
	// Diff is their change, StartedFrom to the current version, as a unified diff.
	Diff string `json:"diff,omitempty"`
	// Error is the version_conflict.
	Error *stick.Error `json:"error,omitempty"`
}

// editDoc runs one edit of the room's document.
func editDoc(cmd *cobra.Command, s *session, r stick.RoomSummary, o docEditOptions) error {
	ctx := cmd.Context()
	words, from, err := editorCommand()
	if err != nil {
		return err
	}
	base, err := startEdit(ctx, s, r.RoomID)
	if err != nil {
		return err
	}
	file, err := editorFile(r.RoomID, base.Version, base.Content)
	if err != nil {
		return err
	}
	editorOut := cmd.OutOrStdout()
	if o.asJSON {
		editorOut = cmd.ErrOrStderr()
	}
	edited, changed := base.Content, false
	runErr := runEditor(words, from, file, o.again(), cmd.InOrStdin(), editorOut, cmd.ErrOrStderr())
	if b, err := os.ReadFile(file); err == nil {
		edited = string(b)
		changed = strings.TrimRight(edited, "\n") != strings.TrimRight(base.Content, "\n")
	} else if runErr == nil {
		return &failure{code: 1, msg: fmt.Sprintf("cannot read the edited file %s: %v; nothing was saved", file, err),
			hint: "an editor must save the file in place, under the same name"}
	}
	if runErr != nil {
		keep := changed && strings.TrimSpace(edited) != "" // an emptied file holds nothing to keep
		if !keep {
			os.Remove(file)
		}
		var f *failure
		if !errors.As(runErr, &f) {
			return runErr
		}
		f.msg += "; nothing was saved"
		if keep {
			f.hint = keptHint(file, f.hint)
		}
		return f
	}
	if changed && strings.TrimSpace(edited) == "" && !o.allowEmpty {
		os.Remove(file) // nothing in it to keep
		what := "empty"
		if edited != "" {
			what = "blank"
		}
		return &failure{code: 1,
			msg: fmt.Sprintf("the edited file is %s, so the edit was aborted: nothing was saved, and the document of room %s stays at version %d",
				what, r.RoomID, base.Version),
			hint: fmt.Sprintf("to empty the document, run '%s --allow-empty' and save an empty file", o.again())}
	}
	p := newPrinter(cmd.OutOrStdout(), o.asJSON)
	out := docEdit{RoomID: r.RoomID, StartedFrom: base.Version, Document: base.DocVersion}
	if !changed {
		os.Remove(file)
		out.Outcome = "unchanged"
		if o.asJSON {
			return p.JSON(out)
		}
		fmt.Fprintf(p.w, "no changes; the document of room %s stays at version %d\n", r.RoomID, base.Version)
		return nil
	}
	// The editor's exit decided; an interrupt typed while it ran must not
	// lose the edit.
	ctx = context.WithoutCancel(ctx)
	saved, err := s.svc.UpdateDoc(ctx, s.caller, r.RoomID, edited, base.Version)
	if stick.ErrorCode(err) == stick.CodeVersionConflict {
		return docConflict(cmd, s, r, base, file, stick.AsError(err), o)
	}
	if err != nil {
		e := *stick.AsError(err)
		e.Hint = keptHint(file, cliWords(e.Hint))
		return &e
	}
	os.Remove(file)
	out.Outcome, out.Document = "saved", saved.DocVersion
	if o.asJSON {
		return p.JSON(out)
	}
	fmt.Fprintf(p.w, "saved version %d of the document of room %s (%d bytes)\n", saved.Version, r.RoomID, saved.Size)
	return nil
}

// startEdit returns the current document for an edit to start from. It
// reads it with an update to the content it already has, which writes
// nothing but runs every check a save runs (membership, an open room), so
// a caller who may not write learns it before editing, not after. A write
// by someone else between the read and that update is read again.
func startEdit(ctx context.Context, s *session, roomID string) (stick.Document, error) {
	for {
		d, err := s.svc.ReadDoc(ctx, roomID, 0)
		if err != nil {
			return d, err
		}
		d, err = s.svc.UpdateDoc(ctx, s.caller, roomID, d.Content, d.Version)
		if stick.ErrorCode(err) != stick.CodeVersionConflict {
			return d, err
		}
	}
}

// keptHint adds where the edited text is kept to a hint.
func keptHint(file, hint string) string {
	kept := "your text is kept in " + file
	if hint == "" {
		return kept
	}
	return kept + "; " + hint
}

// docConflict reports an edit that lost the race: who saved which version
// since the edit started, and their change as a diff. Nothing is saved and
// the edited text stays in file. With --json the report is the JSON on
// standard output, and standard error has only the error and its hint, as
// for every failure.
func docConflict(cmd *cobra.Command, s *session, r stick.RoomSummary, base stick.Document, file string, conflict *stick.Error, o docEditOptions) error {
	ctx := context.WithoutCancel(cmd.Context())
	kept := func(err error) error {
		e := *stick.AsError(err)
		e.Hint = keptHint(file, cliWords(e.Hint))
		return &e
	}
	cur, err := s.svc.ReadDoc(ctx, r.RoomID, 0)
	if err != nil {
		return kept(err)
	}
	history, err := s.svc.DocHistory(ctx, r.RoomID)
	if err != nil {
		return kept(err)
	}
	var meanwhile []stick.DocVersion
	for _, v := range history {
		if v.Version > base.Version && v.Version <= cur.Version {
			meanwhile = append(meanwhile, v)
		}
	}
	diff := linediff.Unified(fmt.Sprintf("version %d (your edit started here)", base.Version),
		fmt.Sprintf("version %d (current)", cur.Version), base.Content, cur.Content)
	retry := fmt.Sprintf("run '%s' again and re-apply your change from %s ('%s --version %d | diff -u - %s' shows your change)",
		o.again(), file, o.read(), base.Version, hintQuote(file))
	what := fmt.Sprintf("the document changed while you edited it: your edit started from version %d, and it is now at version %d; nothing was saved",
		base.Version, cur.Version)
	if o.asJSON {
		e := *conflict
		e.Hint = retry
		out := docEdit{RoomID: r.RoomID, Outcome: "conflict", StartedFrom: base.Version, Document: cur.DocVersion,
			KeptFile: file, Meanwhile: meanwhile, Diff: diff, Error: &e}
		if err := newPrinter(cmd.OutOrStdout(), true).JSON(out); err != nil {
			return err
		}
		e.Message = what // Execute prints it with the hint, and exits 5
		return &e
	}
	w := cmd.ErrOrStderr()
	p := newPrinter(w, false)
	fmt.Fprintf(w, "stick: %s: %s\n", conflict.Code, render.Text(what))
	fmt.Fprintf(w, "your text is kept in %s\n", file)
	fmt.Fprintln(w, "saved meanwhile:")
	for _, v := range meanwhile {
		fmt.Fprintf(w, "  version %d by %s at %s (%s, %d bytes)\n", v.Version, render.Dash(render.Line(v.Author)), v.CreatedAt.Local().Format("2006-01-02 15:04:05"), render.Line(string(v.Op)), v.Size)
	}
	if diff == "" {
		fmt.Fprintf(w, "their change: none (version %d has the same text as version %d)\n", cur.Version, base.Version)
	} else {
		fmt.Fprintf(w, "their change, version %d to %d:\n", base.Version, cur.Version)
		printDiff(p, diff)
	}
	fmt.Fprintf(w, "hint: %s\n", retry)
	return exitCode(exitFor(conflict))
}

// printDiff writes a unified diff, removed lines red and added ones green
// when colours are on.
func printDiff(p *printer, diff string) {
	for _, l := range strings.SplitAfter(strings.TrimSuffix(diff, "\n"), "\n") {
		l = render.Text(strings.TrimSuffix(l, "\n"))
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
			l = p.Bold(l)
		case strings.HasPrefix(l, "@@"):
			l = p.Dim(l)
		case strings.HasPrefix(l, "-"):
			l = p.red(l)
		case strings.HasPrefix(l, "+"):
			l = p.green(l)
		}
		fmt.Fprintln(p.w, l)
	}
}
