package stick_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestHugeInputsRefusedShortly gives every entry point a 10 MB value in a
// field that has a size limit: each is invalid_argument naming the field,
// and the error, with its details, is short.
func TestHugeInputsRefusedShortly(t *testing.T) {
	e := newEnv(t)
	alice := agent("alice")
	room := e.join(alice).RoomID
	huge := strings.Repeat("x", 10<<20)
	lease := stick.Lease{RoomID: room, LeaseID: "lease_1", TurnID: 1}
	cases := []struct {
		field string
		call  func() error
	}{
		{"context_path", func() error {
			_, err := e.svc.JoinPath(e.ctx, alice, stick.JoinRequest{Path: e.repo + "/" + huge})
			return err
		}},
		{"context_path", func() error { _, err := e.svc.ListRooms(e.ctx, huge); return err }},
		{"context_path", func() error { _, err := stick.ResolvePath(huge); return err }},
		{"reclaim_token", func() error {
			_, err := e.svc.JoinPath(e.ctx, alice, stick.JoinRequest{Path: e.repo, ReclaimToken: huge})
			return err
		}},
		{"reclaim_if_gone", func() error {
			_, err := e.svc.JoinPath(e.ctx, alice, stick.JoinRequest{Path: e.repo, ReclaimIfGone: []string{huge}})
			return err
		}},
		{"agent_id_override", func() error {
			_, err := e.svc.JoinPath(e.ctx, alice, stick.JoinRequest{Path: e.repo, AgentIDOverride: huge})
			return err
		}},
		{"agent_id", func() error {
			_, err := e.svc.JoinPath(e.ctx, agent(huge), stick.JoinRequest{Path: e.repo})
			return err
		}},
		{"room_id", func() error { _, err := e.svc.RoomState(e.ctx, huge); return err }},
		{"room_id", func() error { _, err := e.svc.RoomEvents(e.ctx, huge, 0, 0); return err }},
		{"room_id", func() error { _, err := e.svc.TailEvents(e.ctx, huge, 1); return err }},
		{"room_id", func() error { _, err := e.svc.Transcript(e.ctx, huge, 0); return err }},
		{"room_id", func() error { _, err := e.svc.ReadDoc(e.ctx, huge, 0); return err }},
		{"room_id", func() error { _, err := e.svc.AppendNote(e.ctx, alice, huge, "hi"); return err }},
		{"room_id", func() error { _, err := e.svc.Sync(e.ctx, alice, huge, stick.SyncRequest{}); return err }},
		{"room_id", func() error {
			_, err := e.svc.Search(e.ctx, stick.SearchQuery{Query: "x", RoomID: huge})
			return err
		}},
		{"room_id", func() error { _, err := e.svc.WaitForTurn(e.ctx, alice, stick.WaitRequest{RoomID: huge}); return err }},
		{"room_id", func() error { return e.svc.Leave(e.ctx, alice, huge) }},
		{"room_id", func() error { _, err := e.svc.Takeover(e.ctx, alice, huge, 1, "gone"); return err }},
		{"lease_id", func() error {
			l := lease
			l.LeaseID = huge
			_, err := e.svc.Heartbeat(e.ctx, alice, l)
			return err
		}},
		{"room_id", func() error {
			l := lease
			l.RoomID = huge
			_, err := e.svc.Release(e.ctx, alice, l, stick.Handoff{})
			return err
		}},
		{"cursor", func() error {
			_, err := e.svc.WaitForTurn(e.ctx, alice, stick.WaitRequest{RoomID: room, Cursor: huge})
			return err
		}},
		{"query", func() error { _, err := e.svc.Search(e.ctx, stick.SearchQuery{Query: huge}); return err }},
		{"message_type", func() error {
			_, err := e.svc.Post(e.ctx, alice, room, stick.Note{Text: "hi", Type: stick.NoteType(huge)})
			return err
		}},
		{"section", func() error { _, err := e.svc.AppendDoc(e.ctx, alice, room, "hi", huge); return err }},
		{"to_agent_id", func() error { _, err := e.svc.Pass(e.ctx, alice, lease, huge, stick.Handoff{}); return err }},
		{"agent_ids", func() error { _, err := e.svc.ReorderMembers(e.ctx, alice, room, []string{huge}); return err }},
		{"agent_ids", func() error {
			_, err := e.svc.ReorderMembers(e.ctx, alice, room, make([]string, 1<<20))
			return err
		}},
	}
	for i, tc := range cases {
		err := tc.call()
		if err == nil {
			t.Errorf("case %d: want invalid_argument on %s, got success", i, tc.field)
			continue
		}
		se := stick.AsError(err)
		if se.Code != stick.CodeInvalidArgument || se.Details["field"] != tc.field {
			t.Errorf("case %d: want invalid_argument on %s, got %.300v", i, tc.field, err)
			continue
		}
		b, _ := json.Marshal(se)
		if len(b) > 500 || len(se.Error()) > 300 {
			t.Errorf("case %d (%s): the error is %d bytes as JSON: %.300s", i, tc.field, len(b), b)
		}
	}
}

func TestQuote(t *testing.T) {
	if got := stick.Quote("room_1"); got != `"room_1"` {
		t.Errorf("Quote(short) = %s", got)
	}
	long := strings.Repeat("é", 100)
	got := stick.Quote(long)
	if !strings.HasPrefix(got, `"éé`) || !strings.HasSuffix(got, `"… (200 bytes)`) || len(got) > stick.MaxQuoted+30 {
		t.Errorf("Quote(long) = %s", got)
	}
}
