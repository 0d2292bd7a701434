package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/liveness"
	"github.com/stickhq/stick/stick"
)

// stream is the proxy's liveness stream to the hub (see package
// liveness): one connection at a time, made again whenever it ends, until
// the proxy ends or the hub has heard that the harness exited.
type stream struct {
	p *Proxy
	// mu guards leases and out: the leases the harness holds, by room, and
	// the outbox of the connection up (nil while none is).
	mu     sync.Mutex
	leases map[string]stick.Lease
	out    chan liveness.Message
	// ready is closed once the first connection is up, or once it is clear
	// the hub keeps no liveness streams: calls wait for it, so the hub
	// never judges a member whose stream it has not had the chance to see.
	ready     chan struct{}
	readyOnce sync.Once
	// gone is closed when the harness exited; told once the hub heard it
	// (it ended the stream after reading the gone, or refused the session
	// since), or once the stream is held no more.
	gone, told         chan struct{}
	goneOnce, toldOnce sync.Once
}

func newStream(p *Proxy) *stream {
	return &stream{p: p, leases: map[string]stick.Lease{}, ready: make(chan struct{}), gone: make(chan struct{}), told: make(chan struct{})}
}

// errHubStopping ends a connection the hub closed because it stops.
var errHubStopping = errors.New("the hub is stopping")

// errGoneWritten ends the writing of a connection once the gone is
// written: the hub ends the stream when it has read it.
var errGoneWritten = errors.New("the harness's exit is written")

// codeNotFound is the hub's code for a path it has no endpoint at: a hub
// that keeps no liveness streams.
const codeNotFound stick.Code = "not_found"

// hold keeps a stream up until ctx ends or the hub heard that the harness
// exited, connecting again with backoff whenever a connection ends.
func (s *stream) hold(ctx context.Context) {
	defer s.toldOnce.Do(func() { close(s.told) })
	backoff := minBackoff
	wake := s.gone // the harness's exit is said at once, then with backoff
	for {
		up, err := s.connect(ctx)
		if s.saidGone() || ctx.Err() != nil {
			return
		}
		if up {
			backoff = minBackoff
		}
		var refused *stick.Error
		if errors.As(err, &refused) {
			switch refused.Code {
			case codeNotFound:
				s.p.logf("the hub at %s keeps no liveness streams (%s): its rooms judge this member by its lease", s.p.base, refused.Message)
				s.readyOnce.Do(func() { close(s.ready) })
				return
			case stick.CodeUnauthenticated, stick.CodeForbidden:
				s.p.refused.set(refused)
				s.readyOnce.Do(func() { close(s.ready) }) // calls answer with the refusal
				backoff = maxBackoff
			case stick.CodeInvalidArgument:
				if s.exited() {
					// The hub refuses the session of a harness that
					// exited: it heard so on a stream that broke after.
					s.toldOnce.Do(func() { close(s.told) })
					return
				}
			}
		}
		s.p.logf("the liveness stream to %s ended (%v); connecting again in %v", s.p.base, err, backoff)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-wake:
			wake = nil
		case <-ctx.Done():
			t.Stop()
			return
		}
		t.Stop()
		backoff = min(2*backoff, maxBackoff)
	}
}

// connect holds one connection until it ends, and says whether it was up.
func (s *stream) connect(ctx context.Context) (up bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	body, w := io.Pipe()
	defer body.Close() // ends a write the transport no longer reads
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.p.base+liveness.Path, body)
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", liveness.ContentType)
	req.Close = true // one stream per connection
	out := make(chan liveness.Message, 64)
	s.mu.Lock()
	hello := liveness.Message{Type: liveness.Hello}
	for _, l := range s.leases {
		hello.Leases = append(hello.Leases, l)
	}
	s.out = out
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.out == out {
			s.out = nil
		}
		s.mu.Unlock()
	}()
	wrote := make(chan error, 1)
	go func() { wrote <- s.write(ctx, w, hello, out) }()
	resp, err := s.p.http.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if e, _ := hubError(resp); e != nil {
			return false, e
		}
		return false, fmt.Errorf("the hub answered %s", resp.Status)
	}
	lines := make(chan liveness.Message)
	failed := make(chan error, 1)
	go readLines(ctx, resp.Body, lines, failed)
	silence := time.NewTimer(liveness.Silence)
	defer silence.Stop()
	goneWritten := false
	for {
		select {
		case m := <-lines:
			silence.Reset(liveness.Silence)
			switch m.Type {
			case liveness.Ready:
				up = true
				s.p.logf("connected to the hub at %s as %s", s.p.base, m.AgentID)
				s.readyOnce.Do(func() { close(s.ready) })
			case liveness.Shutdown:
				return up, errHubStopping
			}
		case err := <-failed:
			if wrote != nil {
				// Stop the writing, and learn whether it wrote the gone.
				cancel()
				body.Close()
				goneWritten = errors.Is(<-wrote, errGoneWritten)
			}
			if goneWritten && errors.Is(err, io.EOF) {
				// The hub ended the stream after the gone: it heard it.
				s.toldOnce.Do(func() { close(s.told) })
			}
			return up, err
		case err := <-wrote:
			wrote = nil
			if !errors.Is(err, errGoneWritten) && err != nil {
				return up, err
			}
			goneWritten = errors.Is(err, errGoneWritten) // the hub ends the stream once it read it
		case <-silence.C:
			return up, fmt.Errorf("nothing from the hub for %v", liveness.Silence)
		}
	}
}

// write writes the proxy's side of a connection: hello, then the messages
// of out, a ping when there is nothing to say, and gone once the harness
// exited, after which it closes the body and returns errGoneWritten. The
// hub has not necessarily read the gone yet: it says so by ending the
// stream (see connect).
func (s *stream) write(ctx context.Context, w *io.PipeWriter, hello liveness.Message, out <-chan liveness.Message) error {
	enc := json.NewEncoder(w)
	send := func(m liveness.Message) error {
		if err := enc.Encode(m); err != nil {
			w.CloseWithError(err)
			return err
		}
		return nil
	}
	if err := send(hello); err != nil {
		return err
	}
	ping := time.NewTicker(liveness.PingEvery)
	defer ping.Stop()
	for {
		var m liveness.Message
		select {
		case m = <-out:
		case <-ping.C:
			m = liveness.Message{Type: liveness.Ping}
		case <-s.gone:
			if err := send(liveness.Message{Type: liveness.Gone}); err != nil {
				return err
			}
			_ = w.Close()
			return errGoneWritten
		case <-ctx.Done():
			w.CloseWithError(ctx.Err())
			return nil
		}
		if err := send(m); err != nil {
			return err
		}
	}
}

// readLines reads the hub's lines into lines until the body ends or a
// line is not a message; the error goes to failed.
func readLines(ctx context.Context, body io.Reader, lines chan<- liveness.Message, failed chan<- error) {
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		var m liveness.Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			failed <- fmt.Errorf("a line from the hub is not a message: %v", err)
			return
		}
		select {
		case lines <- m:
		case <-ctx.Done():
			return
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	failed <- err
}

// awaitReady waits until the stream has been up once, for at most d.
func (s *stream) awaitReady(ctx context.Context, d time.Duration) error {
	select {
	case <-s.ready:
		return nil
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errors.New("no liveness stream to the hub could be opened")
	}
}

// sayGone tells the hub the harness exited, waiting at most d for the
// word to be written.
func (s *stream) sayGone(d time.Duration) {
	s.goneOnce.Do(func() { close(s.gone) })
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.told:
	case <-t.C:
		s.p.logf("could not tell the hub in %v that the harness exited: it judges the member gone after the room's grace", d)
	}
}

// exited reports whether the harness exited.
func (s *stream) exited() bool {
	select {
	case <-s.gone:
		return true
	default:
		return false
	}
}

// saidGone reports whether the harness exited and the hub was told.
func (s *stream) saidGone() bool {
	select {
	case <-s.told:
		return true
	default:
		return false
	}
}

// follow keeps track of the leases the harness holds, from a call's
// result, and tells the hub to keep or stop keeping them: a your_turn or
// a takeover is a lease to keep; a release, a pass, a leave or a close
// ends the room's.
func (s *stream) follow(tool string, res *mcp.CallToolResult) {
	m, ok := res.StructuredContent.(map[string]any)
	if !ok || res.IsError {
		return
	}
	room, _ := m["room_id"].(string)
	if room == "" {
		return
	}
	switch tool {
	case "wait_for_turn", "takeover_stick":
		lease, _ := m["lease_id"].(string)
		turn, _ := m["turn_id"].(float64)
		if lease != "" && (tool == "takeover_stick" || m["status"] == "your_turn") {
			l := stick.Lease{RoomID: room, LeaseID: lease, TurnID: int64(turn)}
			s.tell(func() { s.leases[room] = l }, liveness.Message{Type: liveness.Keep, Lease: &l})
		}
	case "release_stick", "pass_stick", "leave_path", "close_room":
		s.tell(func() { delete(s.leases, room) }, liveness.Message{Type: liveness.End, RoomID: room})
	}
}

// tell applies change to the leases and sends m on the connection up, if
// any: one that comes up later sends the leases in its hello.
func (s *stream) tell(change func(), m liveness.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change()
	if s.out != nil {
		select {
		case s.out <- m:
		default: // a connection that reads nothing is about to be made again
		}
	}
}
