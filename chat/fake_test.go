package chat

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stickhq/stick/stick"
)

// t0 is when the tests' rooms start; times show in UTC.
var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// post is one call of fakeBackend.Post.
type post struct {
	text      string
	to        []string
	interrupt bool
}

// fakeBackend is a room in memory: a status the test sets, a log, and
// posts that resolve recipients as the room does (agent id or handle; an
// unknown name is unknown_member naming the members).
type fakeBackend struct {
	mu        sync.Mutex
	self      string
	now       time.Time
	status    stick.RoomStatus
	log       []stick.Event
	posts     []post
	statusErr error
	eventsErr error
}

func newFake(self string, members ...stick.MemberStatus) *fakeBackend {
	return &fakeBackend{self: self, now: t0, status: stick.RoomStatus{RoomID: "room_1", State: stick.StateIdle, Members: members}}
}

func (f *fakeBackend) Self() string { return f.self }

func (f *fakeBackend) Status(context.Context) (stick.RoomStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status, f.statusErr
}

func (f *fakeBackend) Events(_ context.Context, after int64, _ time.Duration) ([]stick.Event, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.eventsErr != nil {
		return nil, after, f.eventsErr
	}
	var out []stick.Event
	next := after
	for _, e := range f.log {
		if e.Seq > after {
			out = append(out, e)
			next = e.Seq
		}
	}
	return out, next, nil
}

func (f *fakeBackend) Post(_ context.Context, text string, to []string, interrupt bool) (stick.PostResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts = append(f.posts, post{text, to, interrupt})
	var ids []string
	for _, name := range to {
		id, ok := f.resolve(name)
		if !ok {
			var all []string
			for _, m := range f.status.Members {
				all = append(all, m.AgentID)
			}
			return stick.PostResult{}, stick.Errorf(stick.CodeUnknownMember, "no member %s in this room; its members are %s", name, strings.Join(all, ", "))
		}
		ids = append(ids, id)
	}
	e := f.append(stick.Event{Type: stick.EventNote, From: f.self, Text: text, Recipients: ids, Interrupt: interrupt})
	return stick.PostResult{Event: e}, nil
}

func (f *fakeBackend) resolve(name string) (string, bool) {
	for _, m := range f.status.Members {
		if m.AgentID == name || m.Handle != "" && m.Handle == name {
			return m.AgentID, true
		}
	}
	return "", false
}

// append adds e to the log, numbered and stamped a second after the last.
func (f *fakeBackend) append(e stick.Event) stick.Event {
	f.now = f.now.Add(time.Second)
	e.Seq, e.RoomID, e.CreatedAt = int64(len(f.log)+1), f.status.RoomID, f.now
	f.log = append(f.log, e)
	return e
}

// add adds events to the log as other members would.
func (f *fakeBackend) add(es ...stick.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range es {
		f.append(e)
	}
}

// setStatus changes the room's status with fn.
func (f *fakeBackend) setStatus(fn func(*stick.RoomStatus)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.status)
}

func (f *fakeBackend) lastPost(t *testing.T) post {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.posts) == 0 {
		t.Fatal("nothing was posted")
	}
	return f.posts[len(f.posts)-1]
}

func (f *fakeBackend) postCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.posts)
}

// noColor is an environment with NO_COLOR set.
func noColor(k string) string {
	if k == "NO_COLOR" {
		return "1"
	}
	return ""
}

// colorEnv is an environment without NO_COLOR.
func colorEnv(string) string { return "" }

// console is a Model under test, with the clock it reads.
type console struct {
	*Model
	t   *testing.T
	f   *fakeBackend
	now time.Time
}

// newConsole makes the console of f, 100×30, with the environment getenv,
// and reads the room once.
func newConsole(t *testing.T, f *fakeBackend, getenv func(string) string) *console {
	t.Helper()
	c := &console{t: t, f: f, now: t0}
	c.Model = New(context.Background(), f, Options{Where: "at /src/app", Getenv: getenv, Now: func() time.Time { return c.now }, Location: time.UTC})
	c.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	c.poll()
	return c
}

// poll reads the room's status and log once, as the program's reads do.
func (c *console) poll() {
	c.Update(c.readStatus()())
	c.Update(c.readEvents(c.cursor)())
}

// typeText types s into the input, a key at a time.
func (c *console) typeText(s string) {
	for _, r := range s {
		c.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// press presses a key and returns the command Update gave back.
func (c *console) press(k tea.KeyPressMsg) tea.Cmd {
	_, cmd := c.Update(k)
	return cmd
}

var (
	enter = tea.KeyPressMsg{Code: tea.KeyEnter}
	tab   = tea.KeyPressMsg{Code: tea.KeyTab}
	ctrlC = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	ctrlD = tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
)

// send types line, presses Enter, and runs the post it starts (if any),
// then reads the room again.
func (c *console) send(line string) {
	c.t.Helper()
	c.typeText(line)
	if cmd := c.press(enter); cmd != nil {
		msg := cmd()
		if _, ok := msg.(postedMsg); !ok {
			c.t.Fatalf("Enter on %q gave %T, not a post", line, msg)
		}
		c.Update(msg)
	}
	c.poll()
}

// screen is the console's view as text.
func (c *console) screen() string { return c.View().Content }

// shows fails the test unless the screen shows each of want.
func (c *console) shows(want ...string) {
	c.t.Helper()
	s := c.screen()
	for _, w := range want {
		if !strings.Contains(s, w) {
			c.t.Fatalf("the screen lacks %q:\n%s", w, s)
		}
	}
}

// lacks fails the test if the screen shows any of unwanted.
func (c *console) lacks(unwanted ...string) {
	c.t.Helper()
	s := c.screen()
	for _, w := range unwanted {
		if strings.Contains(s, w) {
			c.t.Fatalf("the screen shows %q:\n%s", w, s)
		}
	}
}

// quits reports whether cmd quits the program.
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

var errDown = errors.New("database is down")
