package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/wake"
)

// A harness session that can be woken (Config.Wake) is woken by its
// proxy, the process on its host, as a local 'stick mcp' wakes its own:
// after a join the proxy registers the transports' names in the room on
// the hub, then, while no call of its harness waits in that room (a
// wait_for_turn, a sync that waits), asks the hub for the next wake with
// a long poll. The hub claims it (once per unread batch, whatever the
// number of proxies and hubs); the proxy delivers a fixed notice with
// package wake and reports the delivery state. The secret of a transport
// never leaves this process: only the transports' names and the delivery
// states go to the hub.
//
// A wake the hub claims while a call waits (one may begin while an await
// is in flight) goes once no call waits, unless a call that ended since
// the await began gave the member what the wake was for: the notes
// addressed to it (every wait_for_turn's result carries them, a sync's
// reads them), or the stick handed to it (a your_turn). A local 'stick
// mcp' never claims while a call waits, and the result of the wait tells
// the member of those notes, so neither wakes it for them.

// wakePoll is how long one await asks the hub to wait for a wake.
const wakePoll = 25 * time.Second

// wakers are the proxy's wake loops, one per room its harness joined, and
// the calls of its harness that wait, per room.
type wakers struct {
	p  *Proxy
	mu sync.Mutex
	// loops are the loops running, by room; rooms what the calls of the
	// harness do in each room.
	loops map[string]*wakeLoop
	rooms map[string]*roomCalls
	// changed is closed, and replaced, whenever a room's waits drop to
	// none.
	changed chan struct{}
	// stopped is set once the proxy's connection ended: no loop starts.
	stopped bool
}

// roomCalls is what the calls of the harness in one room do: waits
// counts those that wait now; told is the newest note addressed to the
// member that a result gave it, turns counts the turns results granted.
type roomCalls struct {
	waits int
	told  int64
	turns int64
}

// wakeLoop is one room's loop.
type wakeLoop struct{ cancel context.CancelFunc }

// enabled reports whether the harness can be woken at all.
func (w *wakers) enabled() bool { return len(w.p.cfg.Wake) > 0 }

// room returns what the calls do in room; w.mu is held.
func (w *wakers) room(room string) *roomCalls {
	if w.rooms == nil {
		w.rooms = map[string]*roomCalls{}
	}
	rc := w.rooms[room]
	if rc == nil {
		rc = &roomCalls{}
		w.rooms[room] = rc
	}
	return rc
}

// calling marks a call of tool with args as waiting in its room, when it
// waits there (every wait_for_turn, a sync with wait_seconds), until the
// returned function is called with the call's result (nil when it
// failed): no wake is delivered meanwhile, and the result says what the
// member was given (see covered).
func (w *wakers) calling(tool string, args json.RawMessage) func(res *mcp.CallToolResult) {
	if !w.enabled() || tool != "wait_for_turn" && tool != "sync" {
		return func(*mcp.CallToolResult) {}
	}
	var in struct {
		RoomID      string  `json:"room_id"`
		WaitSeconds float64 `json:"wait_seconds"`
	}
	if json.Unmarshal(args, &in) != nil || in.RoomID == "" {
		return func(*mcp.CallToolResult) {}
	}
	waits := tool == "wait_for_turn" || in.WaitSeconds > 0
	if waits {
		w.mu.Lock()
		w.room(in.RoomID).waits++
		w.mu.Unlock()
	}
	var once sync.Once
	return func(res *mcp.CallToolResult) {
		once.Do(func() {
			told, turn := given(tool, res)
			w.mu.Lock()
			defer w.mu.Unlock()
			rc := w.room(in.RoomID)
			rc.told = max(rc.told, told)
			if turn {
				rc.turns++
			}
			if waits {
				if rc.waits--; rc.waits == 0 {
					w.broadcast()
				}
			}
		})
	}
}

// given reads what a result of wait_for_turn or sync gave the member: the
// newest note addressed to it (a sync's cursor: what it read), and
// whether it got the stick.
func given(tool string, res *mcp.CallToolResult) (told int64, turn bool) {
	if res == nil || res.IsError {
		return 0, false
	}
	m, _ := res.StructuredContent.(map[string]any)
	notes, _ := m["addressed"].([]any)
	for _, n := range notes {
		e, _ := n.(map[string]any)
		seq, _ := e["event_seq"].(float64)
		told = max(told, int64(seq))
	}
	if tool == "sync" {
		cursor, _ := m["cursor"].(float64)
		told = max(told, int64(cursor))
	}
	return told, tool == "wait_for_turn" && m["status"] == "your_turn"
}

// broadcast wakes the loops that wait for a change; w.mu is held.
func (w *wakers) broadcast() {
	if w.changed != nil {
		close(w.changed)
	}
	w.changed = make(chan struct{})
}

// idle waits until no call waits in room; false when ctx ended first.
func (w *wakers) idle(ctx context.Context, room string) bool {
	for {
		w.mu.Lock()
		if w.changed == nil {
			w.changed = make(chan struct{})
		}
		n, changed := w.room(room).waits, w.changed
		w.mu.Unlock()
		if n == 0 {
			return ctx.Err() == nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// turns is how many turns the results of the calls in room granted.
func (w *wakers) turns(room string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.room(room).turns
}

// covered reports whether the calls in room gave the member what claim
// wakes it for: a note addressed to it, given in a result; the stick
// handed to it, granted by a your_turn since turns counted turnsBefore.
func (w *wakers) covered(room string, claim stick.WakeClaim, turnsBefore int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	rc := w.room(room)
	if claim.Why == stick.WakeAddressed {
		return rc.told >= claim.Seq
	}
	return rc.turns > turnsBefore
}

// follow starts a room's loop after a join the harness made, and ends it
// after the harness left the room.
func (w *wakers) follow(tool string, res *mcp.CallToolResult) {
	if !w.enabled() || res == nil || res.IsError || tool != "join_path" && tool != "leave_path" {
		return
	}
	m, _ := res.StructuredContent.(map[string]any)
	room, _ := m["room_id"].(string)
	if room == "" {
		return
	}
	if tool == "leave_path" {
		w.stop(room)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.loops[room] != nil {
		return
	}
	if w.loops == nil {
		w.loops = map[string]*wakeLoop{}
	}
	ctx, cancel := context.WithCancel(w.p.ctx)
	loop := &wakeLoop{cancel: cancel}
	w.loops[room] = loop
	go w.run(ctx, room, loop)
}

// stop ends the loop of room, if one runs.
func (w *wakers) stop(room string) {
	w.mu.Lock()
	loop := w.loops[room]
	delete(w.loops, room)
	w.mu.Unlock()
	if loop != nil {
		loop.cancel()
	}
}

// stopAll ends every loop, once the harness's connection ended.
func (w *wakers) stopAll() {
	w.mu.Lock()
	loops := w.loops
	w.loops, w.stopped = nil, true
	w.mu.Unlock()
	for _, loop := range loops {
		loop.cancel()
	}
}

// run is the loop of room: register, then await, deliver and report,
// until ctx ends, the member is no more (it left, was removed, the room
// is gone) or the hub refuses for good.
func (w *wakers) run(ctx context.Context, room string, loop *wakeLoop) {
	defer func() {
		loop.cancel()
		w.mu.Lock()
		if w.loops[room] == loop {
			delete(w.loops, room)
		}
		w.mu.Unlock()
	}()
	names := wake.Names(w.p.cfg.Wake)
	register := func() error { return w.p.wakeCall(ctx, room, "register", map[string]any{"transports": names}, nil) }
	if !w.retry(ctx, room, "registering how this session is woken", register) {
		return
	}
	backoff := minBackoff
	for w.idle(ctx, room) {
		var out struct {
			Due   bool             `json:"due"`
			Claim *stick.WakeClaim `json:"claim"`
		}
		start, turns := time.Now(), w.turns(room)
		await := func() error {
			return w.p.wakeCall(ctx, room, "await", map[string]any{"wait_ms": wakePoll.Milliseconds()}, &out)
		}
		if !w.retry(ctx, room, "waiting to wake this session", await) {
			return
		}
		if !out.Due || out.Claim == nil {
			// An await the hub cut short (it stops) is asked again
			// after a pause, never in a busy loop.
			if time.Since(start) < wakePoll/2 {
				if !sleep(ctx, backoff) {
					return
				}
				backoff = min(2*backoff, maxBackoff)
			} else {
				backoff = minBackoff
			}
			continue
		}
		backoff = minBackoff
		// A wait may have begun while the hub claimed the wake: it goes
		// once no call waits, unless a call gave the member what it was
		// for meanwhile.
		if !w.idle(ctx, room) {
			return
		}
		if w.covered(room, *out.Claim, turns) {
			continue
		}
		ds := wake.Deliver(ctx, w.p.cfg.Wake, mcpserver.WakeNotice(*out.Claim), w.p.cfg.WakeOptions)
		if len(ds) == 0 {
			continue
		}
		last := ds[len(ds)-1]
		report := func() error {
			return w.p.wakeCall(ctx, room, "report", map[string]any{"transport": last.Transport, "state": last.State}, nil)
		}
		if !w.retry(ctx, room, "reporting a wake", report) {
			return
		}
	}
}

// retry calls fn until it succeeds (true), ctx ends or the hub refuses
// for good (false): a hub out of reach, or busy, is asked again with
// backoff. A member that is no more (it left, was removed, its room is
// gone or closed) ends the loop quietly; any other refusal is logged.
func (w *wakers) retry(ctx context.Context, room, what string, fn func() error) bool {
	backoff := minBackoff
	for {
		err := fn()
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		var refused *stick.Error
		if errors.As(err, &refused) {
			switch refused.Code {
			case stick.CodeUnknownMember, stick.CodeRoomNotFound, stick.CodeRoomClosed:
				return false
			case stick.CodeInvalidArgument, stick.CodeUnauthenticated, stick.CodeForbidden, codeNotFound, codeMethodNotAllowed:
				w.p.logf("%s in room %s failed: %v; this session is not woken there", what, room, err)
				return false
			}
		}
		w.p.logf("%s in room %s failed (%v); trying again in %v", what, room, err, backoff)
		if !sleep(ctx, backoff) {
			return false
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// codeMethodNotAllowed is the hub's code for a path that takes another
// method: a hub that serves no waking there.
const codeMethodNotAllowed stick.Code = "method_not_allowed"

// maxWakeAnswer bounds the answer of a wake endpoint that is read.
const maxWakeAnswer = 64 << 10

// wakeCall posts body to the wake endpoint op of room on the hub, as the
// member the harness's calls act as (see transport), and decodes the
// answer into out (nil: none is read). A hub's error answer is its
// *stick.Error.
func (p *Proxy) wakeCall(ctx context.Context, room, op string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/api/v1/rooms/"+url.PathEscape(room)+"/wake/"+op, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if e, _ := hubError(resp); e != nil {
			return e
		}
		return fmt.Errorf("the hub answered %s", resp.Status)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxWakeAnswer))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxWakeAnswer)).Decode(out); err != nil {
		return fmt.Errorf("the hub's answer to %s is not JSON: %v", op, err)
	}
	return nil
}
