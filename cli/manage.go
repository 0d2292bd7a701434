package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// textArg reads a text argument: the value itself, or standard input for "-".
func textArg(cmd *cobra.Command, v, field string) (string, error) {
	if v != "-" {
		return v, nil
	}
	b, err := io.ReadAll(cmd.InOrStdin())
	if err != nil {
		return "", stick.Errorf(stick.CodeInvalidArgument, "cannot read %s from standard input: %v", field, err).With("field", field)
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// wordsArg reads a TEXT... argument: the words joined by spaces, or
// standard input for a lone "-".
func wordsArg(cmd *cobra.Command, args []string, field string) (string, error) {
	if len(args) == 1 {
		return textArg(cmd, args[0], field)
	}
	return strings.Join(args, " "), nil
}

// fileArg reads a FILE|- argument.
func fileArg(cmd *cobra.Command, v, field string) (string, error) {
	if v == "" || v == "-" {
		return textArg(cmd, v, field)
	}
	b, err := os.ReadFile(v)
	if err != nil {
		return "", stick.Errorf(stick.CodeInvalidArgument, "cannot read %s from %s: %v", field, v, err).With("field", field).
			WithHint("give a readable file, or - to read standard input")
	}
	return string(b), nil
}

func newNote(agent *string) *cobra.Command {
	var asJSON bool
	var n stick.Note
	var meta, path, roomValue string
	cmd := &cobra.Command{
		Use:   "note TEXT...|- [--path P | --room ROOM]",
		Short: "Post a note to the room (no stick needed; it never changes who holds it)",
		Long: `Post a note to the room of the current directory (or of --path, or to the open
room --room names by its id or its name). The words of TEXT are joined with
spaces, so quotes are optional: stick note CI is red. - reads the text from
standard input.`,
		Example: "  stick note CI is red on main, looking into it\n" +
			"  git log -1 --format=%B | stick note -\n" +
			"  stick note --type question \"keep the old flag?\"\n" +
			"  stick note --type answer --reply-to 12 \"yes, until v2\"\n" +
			"  stick note --path ~/src/app \"a note for that room\"\n" +
			"  stick note --room release-1.4-review \"changelog checked\"   # a named room\n" +
			"  stick note --id deploy-417 --metadata '{\"build\": 417}' \"deployed\"   # safe to retry\n" +
			"  stick note --to reviewer \"please look at the auth change\"   # addressed: shown to reviewer first, wakes it\n" +
			"  stick note --to @ana --interrupt \"stop: main is broken\"\n" +
			"  stick note --channel errors \"flaky test in store\"",
		Args: needs(1, -1, "TEXT, the words of the note, or - to read it from standard input"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := pathAsWord(args); err != nil {
				return err
			}
			t, err := pathOrRoom(cmd, path, roomValue)
			if err != nil {
				return err
			}
			text, err := wordsArg(cmd, args, "text")
			if err != nil {
				return err
			}
			n.Text = text
			if meta != "" {
				n.Metadata = json.RawMessage(meta)
			}
			return inTarget(cmd.Context(), *agent, t, false, func(s *session, r stick.RoomSummary) error {
				res, err := s.svc.Post(cmd.Context(), s.caller, r.RoomID, n)
				if err != nil {
					return notJoined(s, r, err)
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(res)
				}
				switch {
				case res.TextDiffers:
					fmt.Fprintf(p.w, "a duplicate: --id %s was already posted as #%d, with another text, which stands; nothing new was posted\n",
						render.Line(n.ClientMessageID), res.Event.Seq)
					return nil
				case res.Duplicate:
					fmt.Fprintf(p.w, "a duplicate: --id %s was already posted as #%d; nothing new was posted\n", render.Line(n.ClientMessageID), res.Event.Seq)
					return nil
				}
				where := ""
				if res.Event.Channel != "" {
					where = " #" + render.Line(res.Event.Channel)
				}
				fmt.Fprintf(p.w, "%s #%d posted to room %s%s as %s", render.Line(string(res.Event.MessageType)), res.Event.Seq, r.RoomID, where, render.Line(res.Event.From))
				if len(res.Event.Recipients) > 0 {
					fmt.Fprintf(p.w, ", addressed to %s", render.Line(strings.Join(res.Event.Recipients, ", ")))
				}
				fmt.Fprintln(p.w)
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	f := cmd.Flags()
	f.StringVar((*string)(&n.Type), "type", "", "kind of note: note (default), question, answer, decision, or your own that starts with x- (x-ci-status)")
	f.Int64Var(&n.ReplyTo, "reply-to", 0, "the event number (#N in 'stick events') this note answers")
	f.StringVar(&meta, "metadata", "", "a JSON object stored with the note, for tools")
	f.StringVar(&n.ClientMessageID, "id", "", "an id of your own for this note: sending again with it posts nothing new")
	f.StringVar(&path, "path", "", "a path in the workspace whose room to post to (default: the current directory)")
	f.StringArrayVar(&n.To, "to", nil, "address the note to a member: its agent id, @handle or display name (repeat for several; default: the whole room)")
	f.BoolVar(&n.Interrupt, "interrupt", false, "with --to: end the recipients' wait for the stick at once")
	f.StringVar(&n.Channel, "channel", "", "the channel to post to (default general; 'stick channels' lists them)")
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// pathAsWord refuses a note whose first of several words is a directory
// written as a path ("stick note ~/src/app hello", the old form of --path),
// rather than post the path as text to another room. One quoted argument
// is always text.
func pathAsWord(args []string) error {
	if len(args) < 2 || !strings.ContainsRune(args[0], '/') && !strings.ContainsRune(args[0], os.PathSeparator) {
		return nil
	}
	if info, err := os.Stat(args[0]); err != nil || !info.IsDir() {
		return nil
	}
	return fmt.Errorf("the first word of the note, %s, is a directory: for its room give --path %s; to post the words, quote them",
		args[0], shellQuote(args[0]))
}

func newLeave(agent *string) *cobra.Command {
	var asJSON bool
	var roomValue string
	cmd := &cobra.Command{
		Use:     "leave [path | --room ROOM]",
		Short:   "Leave the room's member sequence",
		Example: "  stick leave\n  stick leave --room release-1.4-review",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return inTarget(cmd.Context(), *agent, t, false, func(s *session, r stick.RoomSummary) error {
				if err := s.svc.Leave(cmd.Context(), s.caller, r.RoomID); err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(map[string]any{"room_id": r.RoomID, "agent_id": s.caller.AgentID, "left": true})
				}
				fmt.Fprintf(p.w, "%s left room %s\n", render.Line(s.caller.AgentID), r.RoomID)
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

func newClose(agent *string) *cobra.Command {
	var asJSON, yes bool
	var reason, conclusion, roomID string
	cmd := &cobra.Command{
		Use:   "close [path | --room ROOM_ID]",
		Short: "Close the room for good (its log and document stay readable; closing again revises the conclusion)",
		Long: `Close the room for good: no more turns; its log and document stay readable, and
the next join at its path starts a new room. On a terminal close asks first;
--yes closes without asking, and is needed where there is no terminal to ask
on (scripts, agents). --conclusion records a conclusion, also as the
document's Conclusion section: the text itself, @FILE for a file's content,
or - for standard input. Closing a closed room again revises its reason and
conclusion, without asking. --room closes a room by its id or its name (a
named room has no path).`,
		Example: "  stick close --reason \"v1 shipped\"\n  stick close --yes --reason done --conclusion \"We chose B: simpler.\"\n" +
			"  stick close --yes --conclusion @NOTES.md\n  echo \"We chose B.\" | stick close --yes --conclusion -\n" +
			"  stick close --room release-1.4-review --yes --reason reviewed",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := conclusionArg(cmd, conclusion)
			if err != nil {
				return err
			}
			return inNamedRoom(cmd, *agent, roomID, args, func(s *session, r stick.RoomSummary) error {
				if r.State != stick.StateClosed && !yes {
					if err := confirm(cmd, fmt.Sprintf("close room %s %s for good?", r.RoomID, stick.Where(r.CanonicalPath, r.RoomName))); err != nil {
						return err
					}
				}
				res, err := s.svc.Close(cmd.Context(), s.caller, r.RoomID, reason, text)
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(res)
				}
				verb := "closed"
				if res.Revised {
					verb = "revised the conclusion of"
				}
				fmt.Fprintf(p.w, "%s room %s; its log stays readable ('stick events')\n", verb, res.RoomID)
				if res.DocVersion != 0 {
					fmt.Fprintf(p.w, "the conclusion is the Conclusion section of its document, version %d ('stick doc')\n", res.DocVersion)
				}
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().StringVar(&reason, "reason", "", "why the room closes")
	cmd.Flags().StringVar(&conclusion, "conclusion", "", "a conclusion to record, also in the document's Conclusion section: TEXT, @FILE, or - for standard input")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "close without asking (needed without a terminal)")
	addRoomFlag(cmd, &roomID)
	return cmd
}

// conclusionArg reads the --conclusion of close: the text itself, @FILE
// for a file's content, or - for standard input.
func conclusionArg(cmd *cobra.Command, v string) (string, error) {
	if name, ok := strings.CutPrefix(v, "@"); ok && name != "" {
		return fileArg(cmd, name, "conclusion")
	}
	return textArg(cmd, v, "conclusion")
}

func newPolicy(agent *string) *cobra.Command {
	var asJSON bool
	var lease, claim, heartbeat, presence, wait, grace time.Duration
	var roomValue string
	cmd := &cobra.Command{
		Use:   "policy [path | --room ROOM]",
		Short: "Show or change the room's timeouts",
		Long: `Show the room's effective timeouts, or change some of them. A zero duration
resets a timeout to the default. While the stick is held only its holder may
change them, and while it is reserved only the member it is reserved for; in an
idle room any member may. The new values apply from the next grant, heartbeat or
release, and never end a lease or a claim earlier than already granted.`,
		Example: "  stick policy\n  stick policy --lease 10m --heartbeat 1m --claim 5m\n  stick policy --claim 0   # back to the default\n" +
			"  stick policy --room release-1.4-review --lease 30m",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return inTarget(cmd.Context(), *agent, t, false, func(s *session, r stick.RoomSummary) error {
				var u stick.PolicyUpdate
				for _, f := range []struct {
					name string
					v    *time.Duration
					dst  **time.Duration
				}{
					{"lease", &lease, &u.OwnerLeaseTTL}, {"claim", &claim, &u.ClaimTTL}, {"heartbeat", &heartbeat, &u.HeartbeatInterval},
					{"presence", &presence, &u.PresenceTTL}, {"wait", &wait, &u.WaitMaxWait}, {"grace", &grace, &u.ProxyGrace},
				} {
					if cmd.Flags().Changed(f.name) {
						*f.dst = f.v
					}
				}
				var pol stick.Policy
				var err error
				if u == (stick.PolicyUpdate{}) {
					st, err := s.svc.RoomState(cmd.Context(), r.RoomID)
					if err != nil {
						return err
					}
					pol = st.Policy
				} else if pol, err = s.svc.SetPolicy(cmd.Context(), s.caller, r.RoomID, u); err != nil {
					return notJoined(s, r, err)
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(pol)
				}
				p.table([]string{"TIMEOUT", "VALUE", "MEANING"}, [][]string{
					{"lease", render.Duration(pol.OwnerLeaseTTL), "a silent holder may be taken over after this"},
					{"heartbeat", render.Duration(pol.HeartbeatInterval), "how often a holder renews its lease"},
					{"claim", render.Duration(pol.ClaimTTL), "how long the next member has to claim"},
					{"presence", render.Duration(pol.PresenceTTL), "a member is active this long after its last call"},
					{"wait", render.Duration(pol.WaitMaxWait), "how long one wait blocks by default"},
					{"grace", render.Duration(pol.ProxyGrace), "on a hub, a member behind a proxy out of touch this long is gone"},
				})
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	f := cmd.Flags()
	ttl := "; " + bounds(stick.MinTTL, stick.MaxTTL) + ", 0 resets it to the default"
	def := stick.DefaultPolicy
	f.DurationVar(&lease, "lease", 0, "owner lease TTL, e.g. "+render.Duration(def.OwnerLeaseTTL)+ttl)
	f.DurationVar(&claim, "claim", 0, "claim TTL, e.g. "+render.Duration(def.ClaimTTL)+ttl)
	f.DurationVar(&heartbeat, "heartbeat", 0, "heartbeat interval, e.g. "+render.Duration(def.HeartbeatInterval)+", shorter than the lease"+ttl)
	f.DurationVar(&presence, "presence", 0, "presence TTL, e.g. "+render.Duration(def.PresenceTTL)+", at least the heartbeat"+ttl)
	f.DurationVar(&wait, "wait", 0, "default wait_for_turn block time, e.g. "+render.Duration(def.WaitMaxWait)+"; "+bounds(stick.MinTTL, stick.MaxWaitLimit)+", 0 resets it to the default")
	f.DurationVar(&grace, "grace", 0, "on a hub, how long a member behind 'stick mcp --server' may be out of touch before it is gone, e.g. "+
		render.Duration(def.ProxyGrace)+ttl)
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// bounds writes a policy value's range for a flag's help: "100ms to 720h".
func bounds(lo, hi time.Duration) string { return render.Duration(lo) + " to " + render.Duration(hi) }

// pageRange writes the default and the cap of a page size for a flag's
// help, from the library's constants: "(default 50, at most 1000)".
func pageRange(def, max int) string { return fmt.Sprintf("(default %d, at most %d)", def, max) }
