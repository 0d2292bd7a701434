package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

func newRooms(agent *string) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "rooms",
		Short:   "Maintain the rooms of this machine: 'stick rooms prune' closes abandoned ones",
		Example: "  stick rooms prune\n  stick rooms prune --yes",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newRoomsPrune(agent))
	return cmd
}

// pruneReport is what 'stick rooms prune --json' prints.
type pruneReport struct {
	// Closed is true when the rooms were closed (--yes), false for a listing.
	Closed bool                  `json:"closed"`
	Rooms  []stick.AbandonedRoom `json:"rooms"`
}

func newRoomsPrune(agent *string) *cobra.Command {
	var asJSON, yes bool
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "prune [--yes]",
		Short: "List the abandoned rooms, and close them with --yes",
		Long: `List the rooms nobody can act in any more, and with --yes close them.

A room is abandoned when it is open, no member could still act in it (no
member's process is proven alive, and no member whose process cannot be
judged called within the presence TTL), and either the directory it is for
no longer exists or nobody has called for --idle (30 days by default).

Closing keeps everything: the log and the document of a closed room stay
readable ('stick events --room ID', 'stick export --room ID'), and a later
'stick join' at its path starts a new room. Each close is an event that says
who pruned it and why. Without --yes nothing changes.`,
		Example: "  stick rooms prune\n  stick rooms prune --yes\n  stick rooms prune --idle 168h --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if idle < 0 {
				return fmt.Errorf("--idle must be positive, got %v", idle)
			}
			return withSession(*agent, func(s *session) error {
				var rooms []stick.AbandonedRoom
				var err error
				if yes {
					rooms, err = s.svc.PruneRooms(cmd.Context(), s.caller, idle)
				} else {
					rooms, err = s.svc.AbandonedRooms(cmd.Context(), idle)
				}
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					if rooms == nil {
						rooms = []stick.AbandonedRoom{}
					}
					return p.JSON(pruneReport{Closed: yes, Rooms: rooms})
				}
				if len(rooms) == 0 {
					fmt.Fprintln(p.w, "no abandoned rooms")
					return nil
				}
				now := time.Now()
				rows := make([][]string, len(rooms))
				for i, r := range rooms {
					rows[i] = []string{render.Line(r.RoomID), render.Line(pathCell(r.CanonicalPath, r.RoomName)), p.State(string(r.State)), render.Ago(now, r.LastActivity), render.Line(r.Describe(now))}
				}
				if yes {
					fmt.Fprintf(p.w, "closed %d abandoned room(s):\n", len(rooms))
				} else {
					fmt.Fprintf(p.w, "%d abandoned room(s), nobody can act in them any more:\n", len(rooms))
				}
				p.table([]string{"ROOM", "PATH", "STATE", "ACTIVITY", "WHY"}, rows)
				if yes {
					fmt.Fprintln(p.w, "their logs and documents stay readable: stick events --room ROOM")
				} else {
					fmt.Fprintln(p.w, "run 'stick rooms prune --yes' to close them; their logs and documents stay readable")
				}
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().BoolVar(&yes, "yes", false, "close the abandoned rooms (without it, only list them)")
	cmd.Flags().DurationVar(&idle, "idle", stick.DefaultAbandonAfter, "a room nobody called in for this long is abandoned (if nobody can act in it)")
	return cmd
}
