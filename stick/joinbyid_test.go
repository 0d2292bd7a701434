package stick_test

import (
	"testing"

	"github.com/stickhq/stick/stick"
)

// A join by room id reaches the open room of that id, made by a name or
// by a path, and never makes one.
func TestJoinByID(t *testing.T) {
	e := newEnv(t)
	named, err := e.svc.JoinPath(e.ctx, agent("codex:1"), stick.JoinRequest{Name: "triage"})
	if err != nil {
		t.Fatal(err)
	}
	path := e.join(agent("codex:1"))
	for _, room := range []string{named.RoomID, path.RoomID} {
		res, err := e.svc.JoinPath(e.ctx, person("human:ana@ana"), stick.JoinRequest{RoomID: room})
		if err != nil {
			t.Fatal(err)
		}
		if res.RoomID != room || !res.NewMember || res.Created || res.ReclaimToken == "" {
			t.Fatalf("join by id %s: %+v", room, res)
		}
		if len(e.state(room).Members) != 2 {
			t.Fatalf("the room has no new member: %+v", e.state(room).Members)
		}
		again, err := e.svc.JoinPath(e.ctx, person("human:ana@ana"), stick.JoinRequest{RoomID: room})
		if err != nil || again.NewMember {
			t.Fatalf("joining again: %+v %v", again, err)
		}
	}
	for _, bad := range []struct {
		req  stick.JoinRequest
		code stick.Code
	}{
		{stick.JoinRequest{RoomID: "room_0000000000000000"}, stick.CodeRoomNotFound},
		{stick.JoinRequest{RoomID: named.RoomID, Name: "triage"}, stick.CodeInvalidArgument},
		{stick.JoinRequest{RoomID: named.RoomID, Path: e.repo}, stick.CodeInvalidArgument},
		{stick.JoinRequest{RoomID: named.RoomID, ForceNew: true}, stick.CodeInvalidArgument},
		{stick.JoinRequest{RoomID: named.RoomID, Conclude: true}, stick.CodeInvalidArgument},
	} {
		_, err := e.svc.JoinPath(e.ctx, person("human:bo@bo"), bad.req)
		wantCode(t, err, bad.code)
	}
	if _, err := e.svc.Close(e.ctx, agent("codex:1"), named.RoomID, "done", ""); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.JoinPath(e.ctx, person("human:bo@bo"), stick.JoinRequest{RoomID: named.RoomID})
	wantCode(t, err, stick.CodeRoomClosed)
	if n := len(e.state(named.RoomID).Members); n != 2 {
		t.Fatalf("a refused join changed the closed room's members: %d", n)
	}
}
