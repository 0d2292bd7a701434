package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
	"github.com/stickhq/stick/chat"
	"github.com/stickhq/stick/stick"
)

// chatHistory is how many of the newest events the console shows when it
// opens.
const chatHistory = 200

// newChat is 'stick chat': the full-screen operator console of a room
// (package chat), over this invocation's session.
func newChat(agent *string) *cobra.Command {
	var roomValue string
	var withoutTerminal bool
	cmd := &cobra.Command{
		Use:   "chat [path | --room ROOM]",
		Short: "Open a full-screen console of the room: the conversation live, notes to members, who holds the stick",
		Long: `chat opens a full-screen console of the room of the current directory (or of
the path, or of the open room --room names): the conversation as it happens,
handoffs and turn events in a line each, and at the bottom who holds the stick
and for how long, who is next, and who is away or gone. It joins the room as
you, as an observer: it reads and posts, and never takes the stick.

Type a line and press Enter to post it as a note. @name at its start
addresses it to a member (a handle, an agent id, or the start of a display
name; Tab completes them): after a directed note the console shows, under it,
what the room reports of waking each recipient. /interrupt @name TEXT also
ends the member's wait for the stick at once. /who lists the members and how
they can be woken, /events hides or shows the turn events, /help lists the
commands, /quit (or Ctrl+C, or Ctrl+D on an empty line) leaves. Colours are
off when NO_COLOR is set.

chat needs a terminal. Scripts post with 'stick note' and read with
'stick sync'.`,
		Example: "  stick chat\n" +
			"  stick chat ~/src/app\n" +
			"  stick chat --room release-1.4-review   # a named room\n" +
			"  NO_COLOR=1 stick chat                  # no colours",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !withoutTerminal && (!stdinIsTerminal(cmd.InOrStdin()) || !isTerminal(cmd.OutOrStdout())) {
				return stick.Errorf(stick.CodeInvalidArgument, "'stick chat' is a full-screen console and needs a terminal: its standard input or output is not one").
					WithHint("post a note with 'stick note', read what is new with 'stick sync' (or 'stick events --follow')")
			}
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return inTarget(cmd.Context(), *agent, t, false, func(s *session, r stick.RoomSummary) error {
				return runChat(cmd, s, r)
			})
		},
	}
	addActRoomFlag(cmd, &roomValue)
	cmd.Flags().BoolVar(&withoutTerminal, "without-terminal", false, "run on standard input and output that are not a terminal (tests)")
	_ = cmd.Flags().MarkHidden("without-terminal")
	return cmd
}

// runChat joins the room r as an observer and runs the console in it until
// the user quits or the command's context ends.
func runChat(cmd *cobra.Command, s *session, r stick.RoomSummary) error {
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	res, err := s.svc.JoinPath(ctx, s.caller, joinFor(r))
	if err != nil {
		return err
	}
	if err := markObserver(ctx, s, res.RoomID); err != nil {
		return err
	}
	b := &chatBackend{svc: s.svc, caller: s.caller, roomID: res.RoomID}
	m := chat.New(ctx, b, chat.Options{Where: stick.Where(res.CanonicalPath, res.RoomName), Getenv: getenv})
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(cmd.InOrStdin()), tea.WithOutput(cmd.OutOrStdout()),
		tea.WithoutSignalHandler())
	_, err = p.Run()
	cancel()
	b.close()
	switch {
	case err == nil:
		return nil
	case cmd.Context().Err() != nil:
		return cmd.Context().Err()
	}
	return &failure{code: 1, msg: fmt.Sprintf("the console stopped: %v", err)}
}

// markObserver marks the console's member in roomID as an observer
// (standby): a member that reads and posts and is never given the stick
// by the turn order.
func markObserver(ctx context.Context, s *session, roomID string) error {
	_, err := s.svc.SetStandby(ctx, s.caller, roomID, true)
	return err
}

// chatBackend is the console's chat.Backend over the session's service:
// the room's state, its log followed as 'stick events --follow' follows
// it, and notes posted as the session's caller.
type chatBackend struct {
	svc    *stick.Service
	caller stick.Caller
	roomID string

	mu     sync.Mutex
	closed bool
	calls  sync.WaitGroup
}

// enter counts a call in, so close can wait for it; false once closed.
func (b *chatBackend) enter() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.calls.Add(1)
	return true
}

// close refuses further calls and waits for those under way, so that the
// store is not closed under them.
func (b *chatBackend) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.calls.Wait()
}

// errClosed answers a call made after the console stopped.
var errClosed = errors.New("the console has stopped")

// Self is the session's agent id.
func (b *chatBackend) Self() string { return b.caller.AgentID }

// Status is the room's state.
func (b *chatBackend) Status(ctx context.Context) (stick.RoomStatus, error) {
	if !b.enter() {
		return stick.RoomStatus{}, errClosed
	}
	defer b.calls.Done()
	return b.svc.RoomState(ctx, b.roomID)
}

// Events returns the events after the cursor after, waiting up to wait on
// the room's log (stick.Service.FollowEvents) when there are none; after
// 0 gives the newest chatHistory events.
func (b *chatBackend) Events(ctx context.Context, after int64, wait time.Duration) ([]stick.Event, int64, error) {
	if !b.enter() {
		return nil, after, errClosed
	}
	defer b.calls.Done()
	if after == 0 {
		t, err := b.svc.TailEvents(ctx, b.roomID, chatHistory)
		if err != nil || len(t.Events) > 0 {
			return t.Events, t.Cursor, err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	page, err := b.svc.FollowEvents(wctx, b.roomID, after, 0)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return nil, after, nil // nothing new within wait
	}
	return page.Events, page.Cursor, err
}

// Post posts a note as the session's caller; an error of package stick
// comes back in the CLI's words.
func (b *chatBackend) Post(ctx context.Context, text string, to []string, interrupt bool) (stick.PostResult, error) {
	if !b.enter() {
		return stick.PostResult{}, errClosed
	}
	defer b.calls.Done()
	res, err := b.svc.Post(ctx, b.caller, b.roomID, stick.Note{Text: text, To: to, Interrupt: interrupt})
	var se *stick.Error
	if errors.As(err, &se) {
		e := *se
		e.Message, e.Hint = cliWords(e.Message), cliWords(e.Hint)
		return res, &e
	}
	return res, err
}
