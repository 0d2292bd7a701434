package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// completePath completes the optional path argument of a command: files and
// directories for the first argument, nothing after it.
func completePath(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// newDoc is 'stick doc': the room's shared markdown document, and its
// subcommands edit, append and history.
func newDoc(agent *string) *cobra.Command {
	var asJSON bool
	var version int64
	var roomID string
	cmd := &cobra.Command{
		Use:   "doc [path | --room ROOM_ID]",
		Short: "Print the room's shared document (edit, append and history below)",
		Long: `Every room has one shared markdown document: a plan, the decisions taken, what
is known. Any member may write it, with or without the stick; each write makes a
new version and an event in the log, and old versions stay readable.

'stick doc' prints the current version (or --version N) to standard output
and nothing else, so it can be piped or saved; an empty document prints
nothing, and says so on standard error. Reading needs no membership and works
on closed rooms too; --room reads a room by its id, which reaches a closed room
even after a new room started at its path ('stick list' shows the ids).`,
		Example: "  stick doc                      # the current document of this workspace's room\n" +
			"  stick doc --version 3          # an earlier version ('stick doc history' lists them)\n" +
			"  stick doc --room room_7b64e0c2a1f3d9b8   # a room by its id, closed ones too\n" +
			"  stick doc edit                 # change it in $VISUAL or $EDITOR\n" +
			"  stick doc append --section Decisions \"Keep the v1 flag until v2.\"",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completePath,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := notASubcommand(cmd, args); err != nil {
				return err
			}
			return inNamedRoom(cmd, *agent, roomID, args, func(s *session, r stick.RoomSummary) error {
				d, err := s.svc.ReadDoc(cmd.Context(), r.RoomID, version)
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(d)
				}
				if d.Content == "" {
					fmt.Fprintln(cmd.ErrOrStderr(), emptyDocNote(r, d))
					return nil
				}
				content := render.Text(d.Content)
				fmt.Fprint(p.w, content)
				if !strings.HasSuffix(content, "\n") {
					fmt.Fprintln(p.w)
				}
				return nil
			})
		},
	}
	cmd.SuggestionsMinimumDistance = 2
	addJSON(cmd, &asJSON)
	cmd.Flags().Int64Var(&version, "version", 0, "print this version instead of the current one (see 'stick doc history')")
	addRoomFlag(cmd, &roomID)
	cmd.AddCommand(newDocEdit(agent), newDocAppend(agent), newDocHistory(agent))
	return cmd
}

// notASubcommand refuses a path argument of a command with subcommands
// when it does not exist and reads like a misspelt subcommand, which cobra
// would otherwise take for the path.
func notASubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if _, err := os.Stat(args[0]); err == nil {
		return nil
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		return fmt.Errorf("unknown command %s for %q; did you mean %q? (a path must exist)", stick.Quote(args[0]), cmd.CommandPath(), s[0])
	}
	return nil
}

// emptyDocNote says that a document has nothing in it, and how to write it.
func emptyDocNote(r stick.RoomSummary, d stick.Document) string {
	switch {
	case d.Version > 0:
		return fmt.Sprintf("version %d of the document of room %s is empty", d.Version, r.RoomID)
	case r.State == stick.StateClosed:
		return fmt.Sprintf("room %s is closed and its document was never written", r.RoomID)
	}
	return fmt.Sprintf("the document of room %s is empty; write it with 'stick doc edit' or add to it with 'stick doc append TEXT'", r.RoomID)
}

func newDocHistory(agent *string) *cobra.Command {
	var asJSON bool
	var roomID string
	cmd := &cobra.Command{
		Use:   "history [path | --room ROOM_ID]",
		Short: "List the versions of the room's document: when, by whom, how, how big",
		Example: "  stick doc history\n  stick doc --version 2     # print one of them\n" +
			"  stick doc history --room room_7b64e0c2a1f3d9b8   # a room by its id ('stick list' shows it), closed ones too",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completePath,
		RunE: func(cmd *cobra.Command, args []string) error {
			return inNamedRoom(cmd, *agent, roomID, args, func(s *session, r stick.RoomSummary) error {
				versions, err := s.svc.DocHistory(cmd.Context(), r.RoomID)
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(versions)
				}
				if len(versions) == 0 {
					fmt.Fprintln(p.w, emptyDocNote(r, stick.Document{}))
					return nil
				}
				rows := make([][]string, 0, len(versions))
				for _, v := range versions {
					rows = append(rows, []string{fmt.Sprint(v.Version), v.CreatedAt.Local().Format("2006-01-02 15:04:05"),
						render.Dash(render.Line(v.Author)), render.Line(string(v.Op)), fmt.Sprintf("%d B", v.Size)})
				}
				p.table([]string{"VERSION", "WHEN", "AUTHOR", "OP", "SIZE"}, rows)
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	addRoomFlag(cmd, &roomID)
	return cmd
}

func newDocAppend(agent *string) *cobra.Command {
	var asJSON bool
	var section, path, roomValue string
	cmd := &cobra.Command{
		Use:   "append TEXT...|- [--section S] [--path P | --room ROOM]",
		Short: "Add text to the end of the room's document, or of one of its sections",
		Long: `Add text to the end of the room's document, or with --section to the end of
its "## S" section (made at the end of the document if there is none). The
words of TEXT are joined with spaces; - reads the text from standard input.
Appends never conflict: two members appending at once both get their text in.
Writing needs membership ('stick join') and an open room: the room of the
current directory, of --path, or the one --room names by its id or its name.`,
		Example: "  stick doc append \"Benchmarks: 2.1 ms p99 on the CI box\"\n" +
			"  stick doc append --section Decisions \"Keep the v1 flag until v2.\"\n" +
			"  git log -3 --format='- %s' | stick doc append --section Changes -\n" +
			"  stick doc append --path ~/src/app \"a note for that room\"\n" +
			"  stick doc append --room release-1.4-review --section Decisions \"Ship on Friday.\"",
		Args: needs(1, -1, "TEXT, the words to append, or - to read them from standard input"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := pathOrRoom(cmd, path, roomValue)
			if err != nil {
				return err
			}
			text, err := wordsArg(cmd, args, "text")
			if err != nil {
				return err
			}
			return inTarget(cmd.Context(), *agent, t, false, func(s *session, r stick.RoomSummary) error {
				d, err := s.svc.AppendDoc(cmd.Context(), s.caller, r.RoomID, text, section)
				if err != nil {
					return notJoined(s, r, err)
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(d)
				}
				where := "the end of"
				if section != "" {
					where = fmt.Sprintf("section %q of", sectionName(section))
				}
				fmt.Fprintf(p.w, "appended to %s the document of room %s: now version %d (%d bytes)\n", where, r.RoomID, d.Version, d.Size)
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().StringVar(&section, "section", "", `append to the end of this "## " section, e.g. Decisions (made if missing)`)
	cmd.Flags().StringVar(&path, "path", "", "a path in the workspace whose room to write (default: the current directory)")
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// sectionName is a --section value as its heading reads: "Decisions" for
// "Decisions" or "## Decisions".
func sectionName(s string) string {
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "#"))
}
