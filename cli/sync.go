package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// newSync is 'stick sync': what happened in the room since this identity
// last looked, from the cursor the store keeps for it.
func newSync(agent *string) *cobra.Command {
	var asJSON, includeSelf, noAdvance, reset bool
	var maxItems int
	var wait time.Duration
	var ack int64
	var roomValue string
	var channels []string
	cmd := &cobra.Command{
		Use:   "sync [path | --room ROOM]",
		Short: "Show what happened in the room since you last synced (a cursor kept for you)",
		Long: `sync prints the events of the room you have not been shown yet, oldest first:
claims, handoffs in full, takeovers, notes (your own are left out unless
--include-self). The room keeps a cursor for your identity, so the next
sync goes on where this one stopped, from any terminal or after a restart.
A page holds at most --max events; run it again while it says there is more.
Notes addressed to you come first.`,
		Example: "  stick sync                 # what is new since last time\n" +
			"  stick sync --wait 5m       # wait for the next event if nothing is new\n" +
			"  stick sync --reset         # from the beginning of the log\n" +
			"  stick sync --no-advance    # look without moving the cursor; --ack N moves it later\n" +
			"  stick sync --room release-1.4-review   # a named room",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := stick.SyncRequest{MaxItems: maxItems, IncludeSelf: includeSelf, Wait: wait, ManualAck: noAdvance, CursorReset: reset, Channels: channels}
			if cmd.Flags().Changed("ack") {
				if !noAdvance {
					return fmt.Errorf("--ack moves the cursor only with --no-advance; without it the cursor moves by itself")
				}
				req.AckThrough = &ack
			}
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return inTarget(cmd.Context(), *agent, t, true, func(s *session, r stick.RoomSummary) error {
				res, err := s.svc.Sync(cmd.Context(), s.caller, r.RoomID, req)
				if err != nil {
					return notJoined(s, r, err)
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(res)
				}
				if len(res.Addressed) > 0 {
					fmt.Fprintln(p.w, p.Bold(fmt.Sprintf("addressed to you (%d):", len(res.Addressed))))
					for _, e := range res.Addressed {
						render.WriteEvent(p.w, p, e)
					}
					if len(res.Received) > 0 {
						fmt.Fprintln(p.w, p.Bold("the rest:"))
					}
				}
				for _, e := range res.Received {
					render.WriteEvent(p.w, p, e)
				}
				switch {
				case res.HasMore:
					fmt.Fprintf(p.w, "%s\n", p.Dim(fmt.Sprintf("more: run 'stick sync%s%s' again (cursor %d)", agentArg(cmd), roomArg(r.RoomName), res.Cursor)))
				case len(res.Received)+len(res.Addressed) == 0 && res.Status == "timeout":
					fmt.Fprintf(p.w, "nothing new in %s (cursor %d)\n", render.Duration(wait), res.Cursor)
				case len(res.Received)+len(res.Addressed) == 0:
					fmt.Fprintf(p.w, "nothing new (cursor %d)\n", res.Cursor)
				}
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	f := cmd.Flags()
	f.IntVar(&maxItems, "max", 0, "show at most this many events "+pageRange(stick.DefaultSyncItems, stick.MaxEventLimit))
	f.DurationVar(&wait, "wait", 0, "when nothing is new, wait this long for the next event (at most "+render.Duration(stick.MaxWaitLimit)+")")
	f.BoolVar(&includeSelf, "include-self", false, "also show your own events")
	f.BoolVar(&noAdvance, "no-advance", false, "leave the cursor where it is (move it later with --ack)")
	f.Int64Var(&ack, "ack", 0, "with --no-advance: move the cursor to this event number")
	f.BoolVar(&reset, "reset", false, "start from the beginning of the log")
	f.StringArrayVar(&channels, "channel", nil, "only notes of this channel (repeat for several; other events still show)")
	addRoomFlag(cmd, &roomValue)
	return cmd
}
