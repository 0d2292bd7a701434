package stick_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// room3 joins ana, bob and cy (display name "Cy Reviewer") to one room.
func room3(e *env) (room string, ana, bob, cy stick.Caller) {
	e.t.Helper()
	ana, bob, cy = agent("ana"), agent("bob"), agent("codex:cy")
	cy.DisplayName = "Cy Reviewer"
	room = e.join(ana).RoomID
	e.join(bob)
	e.join(cy)
	return room, ana, bob, cy
}

func (e *env) post(c stick.Caller, room string, n stick.Note) stick.Event {
	e.t.Helper()
	res, err := e.svc.Post(e.ctx, c, room, n)
	if err != nil {
		e.t.Fatalf("post by %s: %v", c.AgentID, err)
	}
	return res.Event
}

// A note addresses members by agent id, handle or a prefix of a display
// name; the whole room (or "all") is no recipient; each is named once.
func TestDirectedNoteResolvesRecipients(t *testing.T) {
	e := newEnv(t)
	room, ana, bob, cy := room3(e)
	if _, err := e.svc.SetHandle(e.ctx, bob, room, "@builder"); err != nil {
		t.Fatal(err)
	}
	ev := e.post(ana, room, stick.Note{Text: "look", To: []string{"@builder", "cy rev", "codex:cy", "all"}})
	if want := []string{bob.AgentID, cy.AgentID}; !slices.Equal(ev.Recipients, want) {
		t.Fatalf("recipients %v, want %v", ev.Recipients, want)
	}
	if ev := e.post(ana, room, stick.Note{Text: "everyone", To: []string{"all"}}); len(ev.Recipients) != 0 {
		t.Fatalf("a note to all has recipients %v", ev.Recipients)
	}
}

// An unknown or ambiguous recipient is invalid_argument naming the
// members, and posts nothing; so is an interrupt without recipients.
func TestDirectedNoteRefusesUnknownRecipients(t *testing.T) {
	e := newEnv(t)
	room, ana, _, _ := room3(e)
	before := e.state(room).LastEventSeq
	_, err := e.svc.Post(e.ctx, ana, room, stick.Note{Text: "hi", To: []string{"zed"}})
	se := wantCode(t, err, stick.CodeInvalidArgument)
	for _, name := range []string{"ana", "bob", "codex:cy", `"Cy Reviewer"`} {
		if !strings.Contains(se.Message, name) {
			t.Errorf("message %q does not name member %s", se.Message, name)
		}
	}
	_, err = e.svc.Post(e.ctx, ana, room, stick.Note{Text: "hi", To: []string{"c"}}) // codex:cy and "Cy Reviewer"'s prefix: one member
	if err != nil {
		t.Fatalf("c names codex:cy alone: %v", err)
	}
	before++
	_, err = e.svc.Post(e.ctx, ana, room, stick.Note{Text: "hi", To: []string{"a"}}) // ana by id, and no other
	if err != nil {
		t.Fatalf("a names ana alone: %v", err)
	}
	before++
	if _, err := e.svc.SetHandle(e.ctx, agent("bob"), room, "cook"); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Post(e.ctx, ana, room, stick.Note{Text: "hi", To: []string{"c"}}) // now also bob's handle
	if se := wantCode(t, err, stick.CodeInvalidArgument); !strings.Contains(se.Message, "several") {
		t.Fatalf("ambiguous name: %q", se.Message)
	}
	_, err = e.svc.Post(e.ctx, ana, room, stick.Note{Text: "hi", To: []string{""}, Interrupt: true})
	wantCode(t, err, stick.CodeInvalidArgument)
	if e.state(room).LastEventSeq != before {
		t.Fatalf("a refused note was posted")
	}
}

// sync gives the notes addressed to the caller first, apart from the rest.
func TestSyncGivesAddressedNotesFirst(t *testing.T) {
	e := newEnv(t)
	room, ana, bob, _ := room3(e)
	e.post(ana, room, stick.Note{Text: "for everyone"})
	to := e.post(ana, room, stick.Note{Text: "for bob", To: []string{"bob"}})
	res, err := e.svc.Sync(e.ctx, bob, room, stick.SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Addressed) != 1 || res.Addressed[0].Seq != to.Seq {
		t.Fatalf("addressed %+v, want the note for bob", res.Addressed)
	}
	for _, ev := range res.Received {
		if ev.Seq == to.Seq {
			t.Fatalf("the addressed note is repeated in received")
		}
	}
	if !slices.ContainsFunc(res.Received, func(ev stick.Event) bool { return ev.Text == "for everyone" }) {
		t.Fatalf("received %+v lacks the note for everyone", res.Received)
	}
}

// A wait_for_turn is interrupted by an interrupting note addressed to its
// caller that arrives while it waits, and carries the note; a plain
// directed note does not end it, and an older interrupt does not either.
func TestInterruptEndsAWait(t *testing.T) {
	e := newEnv(t)
	room, ana, bob, _ := room3(e)
	e.claim(ana, room)
	e.post(ana, room, stick.Note{Text: "old", To: []string{"bob"}, Interrupt: true})
	if res := e.try(bob, room); res.Status != stick.NotYet || len(res.Addressed) != 1 {
		t.Fatalf("an interrupt from before the call: %+v", res)
	}
	ch := e.waitAsync(context.Background(), bob, stick.WaitRequest{RoomID: room})
	e.settle(1)
	e.post(ana, room, stick.Note{Text: "not urgent", To: []string{"bob"}})
	select {
	case o := <-ch:
		t.Fatalf("a plain directed note ended the wait: %+v", o)
	case <-time.After(100 * time.Millisecond):
	}
	urgent := e.post(ana, room, stick.Note{Text: "stop: main is broken", To: []string{"bob"}, Interrupt: true})
	o := outcome(t, ch)
	res := o.res
	if o.err != nil || res.Status != stick.Interrupted {
		t.Fatalf("status %s, want interrupted", res.Status)
	}
	if n := len(res.Addressed); n != 3 || res.Addressed[n-1].Seq != urgent.Seq {
		t.Fatalf("addressed %+v, want the three notes for bob, the urgent one last", res.Addressed)
	}
}

// A room offers general and, without declarations, the default channels;
// a note to another channel is refused with the list; declared channels
// replace the defaults, and their counts show in ListChannels.
func TestChannels(t *testing.T) {
	e := newEnv(t)
	room, ana, _, _ := room3(e)
	chs, err := e.svc.ListChannels(e.ctx, room)
	if err != nil {
		t.Fatal(err)
	}
	if got := channelNames(chs); !slices.Equal(got, []string{"general", "roadmap", "parallel-work", "errors"}) {
		t.Fatalf("default channels %v", got)
	}
	_, err = e.svc.Post(e.ctx, ana, room, stick.Note{Text: "x", Channel: "review"})
	if se := wantCode(t, err, stick.CodeInvalidArgument); !strings.Contains(se.Message, "general, roadmap, parallel-work, errors") {
		t.Fatalf("message %q does not list the channels", se.Message)
	}
	if err := e.svc.DeclareChannels(e.ctx, ana, room, []stick.ChannelSpec{{Name: "review", Description: "Reviews"}, {Name: "review", Description: "again"}}); err == nil {
		t.Fatal("duplicate channels were declared")
	}
	if err := e.svc.DeclareChannels(e.ctx, ana, room, []stick.ChannelSpec{{Name: "review", Description: "Reviews"}}); err != nil {
		t.Fatal(err)
	}
	ev := e.post(ana, room, stick.Note{Text: "LGTM", Channel: "review"})
	e.post(ana, room, stick.Note{Text: "in general"})
	if ev.Channel != "review" {
		t.Fatalf("channel %q", ev.Channel)
	}
	chs, _ = e.svc.ListChannels(e.ctx, room)
	if got := channelNames(chs); !slices.Equal(got, []string{"general", "review"}) {
		t.Fatalf("declared channels %v", got)
	}
	if chs[1].Notes != 1 || chs[1].LastActivity == nil || chs[0].Notes != 1 {
		t.Fatalf("counts %+v", chs)
	}
	hist, err := e.svc.History(e.ctx, stick.HistoryQuery{RoomID: room, Channels: []string{"review"}})
	if err != nil || len(hist) != 1 || hist[0].Text != "LGTM" {
		t.Fatalf("history of review: %+v %v", hist, err)
	}
	res, err := e.svc.Sync(e.ctx, agent("bob"), room, stick.SyncRequest{Channels: []string{"review"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range res.Received {
		if ev.Type == stick.EventNote && ev.ChannelName() != "review" {
			t.Fatalf("sync of review gave a note of %s", ev.ChannelName())
		}
	}
}

// A channel with a retention keeps its newest notes only, never a
// handoff or another channel's notes.
func TestChannelRetention(t *testing.T) {
	e := newEnv(t)
	room, ana, bob, _ := room3(e)
	if err := e.svc.DeclareChannels(e.ctx, ana, room, []stick.ChannelSpec{{Name: "ci", Description: "CI", MaxMessages: 2}}); err != nil {
		t.Fatal(err)
	}
	w := e.claim(ana, room)
	e.release(ana, w.Lease(), "handed over")
	for _, text := range []string{"one", "two", "three", "four"} {
		e.post(bob, room, stick.Note{Text: text, Channel: "ci"})
	}
	e.post(bob, room, stick.Note{Text: "a general note"})
	hist, err := e.svc.History(e.ctx, stick.HistoryQuery{RoomID: room, Channels: []string{"ci"}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, ev := range hist {
		texts = append(texts, ev.Text)
	}
	if !slices.Equal(texts, []string{"three", "four"}) {
		t.Fatalf("ci keeps %v, want its two newest", texts)
	}
	all, _ := e.svc.History(e.ctx, stick.HistoryQuery{RoomID: room, Limit: 100})
	if !slices.ContainsFunc(all, func(ev stick.Event) bool { return ev.Type == stick.EventRelease }) ||
		!slices.ContainsFunc(all, func(ev stick.Event) bool { return ev.Text == "a general note" }) {
		t.Fatalf("retention pruned more than ci's notes: %+v", all)
	}
}

// Handles are unique in a room, shown in its state and read back by WhoAmI.
func TestHandles(t *testing.T) {
	e := newEnv(t)
	room, ana, bob, _ := room3(e)
	if _, err := e.svc.SetHandle(e.ctx, ana, room, "lead"); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.SetHandle(e.ctx, bob, room, "lead")
	if se := wantCode(t, err, stick.CodeInvalidArgument); !strings.Contains(se.Message, "ana") {
		t.Fatalf("message %q does not say who has it", se.Message)
	}
	wantCode(t, func() error { _, err := e.svc.SetHandle(e.ctx, bob, room, "Not A Handle"); return err }(), stick.CodeInvalidArgument)
	id, err := e.svc.WhoAmI(e.ctx, ana, room)
	if err != nil || id.Handle != "lead" || id.AgentID != "ana" {
		t.Fatalf("whoami %+v %v", id, err)
	}
	if m := e.state(room).Members[0]; m.Handle != "lead" {
		t.Fatalf("state shows handle %q", m.Handle)
	}
}

// A member on standby is skipped by the sequence, but may be passed the
// stick; claiming takes it off standby.
func TestStandby(t *testing.T) {
	e := newEnv(t)
	room, ana, bob, cy := room3(e)
	if _, err := e.svc.SetStandby(e.ctx, bob, room, true); err != nil {
		t.Fatal(err)
	}
	w := e.claim(ana, room)
	if r := e.release(ana, w.Lease(), "done"); r.ReservedFor != cy.AgentID {
		t.Fatalf("the stick went to %s, want cy (bob stands by)", r.ReservedFor)
	}
	w = e.claim(cy, room)
	if _, err := e.svc.Pass(e.ctx, cy, w.Lease(), bob.AgentID, handoff("for bob")); err != nil {
		t.Fatalf("pass to a member on standby: %v", err)
	}
	e.claim(bob, room)
	for _, m := range e.state(room).Members {
		if m.AgentID == bob.AgentID && m.Standby {
			t.Fatal("bob is still on standby after claiming")
		}
	}
}

// Removing a member: a holder loses the stick (its lease is fenced), the
// log records who removed it; an agent's session may not remove a live
// member, but may remove one whose process is gone.
func TestRemoveMember(t *testing.T) {
	e := newEnv(t)
	room, ana, bob, _ := room3(e)
	w := e.claim(bob, room)
	st, err := e.svc.RemoveMember(e.ctx, ana, room, bob.AgentID, "left for the day")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != stick.StateIdle || slices.ContainsFunc(st.Members, func(m stick.MemberStatus) bool { return m.AgentID == bob.AgentID }) {
		t.Fatalf("after removal: state %s, members %+v", st.State, st.Members)
	}
	if _, err := e.svc.Heartbeat(e.ctx, bob, w.Lease()); err == nil {
		t.Fatal("the removed holder's lease still works")
	}
	last, _ := e.svc.History(e.ctx, stick.HistoryQuery{RoomID: room, Types: []stick.EventType{stick.EventLeave}, Limit: 1})
	d, ok := last[0].RemovedData()
	if !ok || d.By != ana.AgentID || d.Reason != "left for the day" || d.HeldTurn != w.TurnID {
		t.Fatalf("leave event %+v, data %+v", last[0], d)
	}
	harness := stick.Caller{AgentID: "claude-code:x", Kind: stick.KindHarness}
	e.join(harness)
	live, kill := liveAgent(t, "codex:live")
	e.join(live)
	_, err = e.svc.RemoveMember(e.ctx, harness, room, live.AgentID, "")
	wantCode(t, err, stick.CodeForbidden)
	kill()
	if _, err := e.svc.RemoveMember(e.ctx, harness, room, live.AgentID, ""); err != nil {
		t.Fatalf("removing a member whose process is gone: %v", err)
	}
}

// A wake is claimed once per unread batch: a note addressed to a member
// makes one due; a second note before it reads makes none; once it has
// synced, the next note makes one again; a pass makes one.
func TestWakeOncePerBatch(t *testing.T) {
	e := newEnv(t)
	room, ana, bob, _ := room3(e)
	claim := func() (stick.WakeClaim, bool) {
		c, ok, err := e.svc.ClaimWake(e.ctx, bob, room)
		if err != nil {
			t.Fatal(err)
		}
		return c, ok
	}
	if _, ok := claim(); ok {
		t.Fatal("a wake is due with nothing addressed")
	}
	first := e.post(ana, room, stick.Note{Text: "one", To: []string{"bob"}})
	if c, ok := claim(); !ok || c.Seq != first.Seq || c.From != "ana" || c.Why != stick.WakeAddressed {
		t.Fatalf("claim %+v %v", c, ok)
	}
	if _, ok := claim(); ok {
		t.Fatal("claimed twice")
	}
	e.post(ana, room, stick.Note{Text: "two", To: []string{"bob"}})
	if _, ok := claim(); ok {
		t.Fatal("woken again before reading")
	}
	e.post(ana, room, stick.Note{Text: "to all"})
	if _, err := e.svc.Sync(e.ctx, bob, room, stick.SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := claim(); ok {
		t.Fatal("a wake is due after reading everything")
	}
	e.post(ana, room, stick.Note{Text: "three", To: []string{"bob"}})
	if _, ok := claim(); !ok {
		t.Fatal("no wake for a new batch")
	}
	w := e.claim(ana, room)
	if _, err := e.svc.Pass(e.ctx, ana, w.Lease(), bob.AgentID, handoff("yours")); err != nil {
		t.Fatal(err)
	}
	if c, ok := claim(); !ok || c.Why != stick.WakeHanded {
		t.Fatalf("pass: claim %+v %v", c, ok)
	}
	if err := e.svc.ReportWake(e.ctx, bob, room, "claude-inbox", "queued"); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.RegisterWake(e.ctx, bob, room, []string{"claude-inbox"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range e.state(room).Members {
		if m.AgentID == bob.AgentID && (m.Wake == nil || m.Wake.LastState != "queued" || m.Wake.Transports[0] != "claude-inbox") {
			t.Fatalf("bob's wake status %+v", m.Wake)
		}
	}
}

func channelNames(chs []stick.ChannelInfo) []string {
	var out []string
	for _, c := range chs {
		out = append(out, c.Name)
	}
	return out
}
