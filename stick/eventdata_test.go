package stick_test

import (
	"encoding/json"
	"testing"

	"github.com/stickhq/stick/stick"
)

// The payloads encode to the bytes the log has always held: keys in
// alphabetical order, section and reclaimed only when set.
func TestEventDataJSON(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{stick.JoinData{Override: true, SessionKind: stick.KindHarness, Ordinal: 3},
			`{"force_new":false,"ordinal":3,"override":true,"session_kind":"mcp_harness"}`},
		{stick.JoinData{ForceNew: true, SessionKind: stick.KindOneShot, Ordinal: 1, Reclaimed: true},
			`{"force_new":true,"ordinal":1,"override":false,"reclaimed":true,"session_kind":"one_shot"}`},
		{stick.DocData{Version: 2, Op: stick.DocAppend, Size: 40}, `{"op":"append","size":40,"version":2}`},
		{stick.DocData{Version: 3, Op: stick.DocAppend, Size: 9, Section: "<Decisions>"},
			`{"op":"append","section":"\u003cDecisions\u003e","size":9,"version":3}`},
		{stick.CloseData{DocVersion: 4}, `{"doc_version":4}`},
		{stick.ReorderData{AgentIDs: []string{"b", "a"}}, `{"agent_ids":["b","a"]}`},
		{stick.TakeoverData{TakeoverReason: stick.ReasonOwnerGone}, `{"takeover_reason":"owner_gone"}`},
	} {
		got, err := json.Marshal(tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("%T: %s %v, want %s", tc.v, got, err, tc.want)
		}
	}
}

// Every payload the service writes reads back through its accessor, and
// only through the accessor of its own event type.
func TestEventDataAccessors(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	if _, err := e.svc.AppendDoc(e.ctx, a, room, "decided", "Decisions"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.ReorderMembers(e.ctx, a, room, []string{"b", "a"}); err != nil {
		t.Fatal(err)
	}
	lease := stick.DefaultPolicy.OwnerLeaseTTL / 2
	if _, err := e.svc.SetPolicy(e.ctx, a, room, stick.PolicyUpdate{OwnerLeaseTTL: &lease}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Close(e.ctx, a, room, "done", "it works"); err != nil {
		t.Fatal(err)
	}
	page, err := e.svc.RoomEvents(e.ctx, room, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[stick.EventType]bool{}
	for _, ev := range page.Events {
		j, isJoin := ev.JoinData()
		d, isDoc := ev.DocData()
		c, isClose := ev.CloseData()
		r, isReorder := ev.ReorderData()
		p, isPolicy := ev.PolicyData()
		_, isTakeover := ev.TakeoverData()
		got := map[stick.EventType]bool{stick.EventJoin: isJoin, stick.EventDoc: isDoc, stick.EventClose: isClose,
			stick.EventReorder: isReorder, stick.EventPolicy: isPolicy, stick.EventTakeover: isTakeover}
		for typ, ok := range got {
			if ok != (typ == ev.Type) {
				t.Errorf("event #%d (%s): the %s accessor says %v", ev.Seq, ev.Type, typ, ok)
			}
		}
		seen[ev.Type] = true
		switch ev.Type {
		case stick.EventJoin:
			if j.SessionKind != stick.KindProcess || j.Ordinal == 0 || j.Override || j.Reclaimed {
				t.Errorf("join data: %+v", j)
			}
		case stick.EventDoc:
			if d.Version != 1 || d.Op != stick.DocAppend || d.Section != "Decisions" || d.Size == 0 {
				t.Errorf("doc data: %+v", d)
			}
		case stick.EventClose:
			if c.DocVersion != 2 {
				t.Errorf("close data: %+v", c)
			}
		case stick.EventReorder:
			if len(r.AgentIDs) != 2 || r.AgentIDs[0] != "b" {
				t.Errorf("reorder data: %+v", r)
			}
		case stick.EventPolicy:
			if p.OwnerLeaseTTL != lease || p.ClaimTTL != stick.DefaultPolicy.ClaimTTL {
				t.Errorf("policy data: %+v", p)
			}
		}
	}
	for _, typ := range []stick.EventType{stick.EventJoin, stick.EventDoc, stick.EventClose, stick.EventReorder, stick.EventPolicy} {
		if !seen[typ] {
			t.Errorf("no %s event: %+v", typ, page.Events)
		}
	}
	// Data that cannot be read is no payload.
	if _, ok := (stick.Event{Type: stick.EventDoc, Data: json.RawMessage(`{"version":"x"}`)}).DocData(); ok {
		t.Error("unreadable doc data was read")
	}
	if _, ok := (stick.Event{Type: stick.EventClose}).CloseData(); ok {
		t.Error("a close without data has a payload")
	}
}

// A takeover records why takeover was open.
func TestTakeoverData(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	e.claim(a, room)
	e.clock.Advance(stick.DefaultPolicy.OwnerLeaseTTL + 1)
	res, err := e.svc.Takeover(e.ctx, b, room, 1, "a went quiet")
	if err != nil {
		t.Fatal(err)
	}
	ev, ok := eventAt(t, e, room, res.EventSeq)
	if d, has := ev.TakeoverData(); !ok || !has || d.TakeoverReason != stick.ReasonOwnerTimeout {
		t.Fatalf("takeover data: %+v %v", ev, has)
	}
}

func eventAt(t *testing.T, e *env, room string, seq int64) (stick.Event, bool) {
	t.Helper()
	page, err := e.svc.RoomEvents(e.ctx, room, seq-1, 1)
	if err != nil || len(page.Events) != 1 {
		t.Fatalf("event %d: %+v %v", seq, page, err)
	}
	return page.Events[0], page.Events[0].Seq == seq
}
