package cli

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/internal/atomicfile"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// newExport is 'stick export': a whole room (state, members, document and
// log with every handoff) as markdown for a reader or as JSON for a tool.
func newExport(agent *string) *cobra.Command {
	var format, output, roomID string
	var after int64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "export [path | --room ROOM_ID] [--format markdown|json | --json] [--after N] [-o FILE]",
		Short: "Export a room: state, members, document and every event with its handoff",
		Long: `Export the room of a path in one consistent read: its state and members, its
shared document, and every event of its log in order (handoffs in full, notes,
document writes, joins, leaves, closes). Markdown, the default, reads well and
can be pasted into a new agent's context; --format json (or --json) is the
transcript as stick's library returns it, for tools. --after N leaves out the
events up to event N (the export says so). Closed rooms export too; no
membership is needed. --room exports a room by its id, which reaches a closed
room even after a new room started at its path ('stick list' shows the ids).`,
		Example: "  stick export > room.md\n" +
			"  stick export ~/src/app --after 120 -o recent.md\n" +
			"  stick export --json | jq '.events | length'\n" +
			"  stick export --room room_7b64e0c2a1f3d9b8 -o old-room.md   # a room by its id, closed ones too",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completePath,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "markdown" && format != "json" {
				return fmt.Errorf("--format must be markdown or json, not %s", stick.Quote(format))
			}
			if asJSON {
				if cmd.Flags().Changed("format") && format != "json" {
					return fmt.Errorf("--json and --format %s ask for different formats; give one of them", format)
				}
				format = "json"
			}
			return inNamedRoom(cmd, *agent, roomID, args, func(s *session, r stick.RoomSummary) error {
				t, err := s.svc.Transcript(cmd.Context(), r.RoomID, after)
				if err != nil {
					return err
				}
				var b bytes.Buffer
				if format == "json" {
					if err := render.TranscriptJSON(&b, t); err != nil {
						return err
					}
				} else {
					render.Markdown(&b, t)
				}
				if output == "" || output == "-" {
					_, err := cmd.OutOrStdout().Write(b.Bytes())
					return err
				}
				if err := atomicfile.WriteFile(output, b.Bytes(), 0o644); err != nil {
					return &failure{code: 1, msg: fmt.Sprintf("cannot write the export to %s: %v", output, err),
						hint: "give -o a file in a writable directory, or leave -o out to write to standard output"}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "exported room %s (%s, document version %d) to %s\n",
					r.RoomID, eventCount(len(t.Events)), t.Document.Version, output)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "markdown", "markdown or json")
	f.BoolVar(&asJSON, "json", false, "print JSON: the same as --format json")
	addRoomFlag(cmd, &roomID)
	f.Int64Var(&after, "after", 0, "only the events after this event number")
	f.StringVarP(&output, "output", "o", "", "write to FILE instead of standard output (replaced whole, atomically)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]cobra.Completion{"markdown", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// eventCount says "1 event" or "N events".
func eventCount(n int) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}
