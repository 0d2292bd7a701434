package storetest

import (
	"strconv"
	"time"

	"github.com/stickhq/stick/stick"
)

var memberCases = []testCase{
	{"SaveReadReplaceDelete", testMembers},
}

func itoa(n int) string { return strconv.Itoa(n) }

// member is a member of room with every field set.
func member(room, agent string, ordinal int) stick.Member {
	return stick.Member{
		RoomID: room, AgentID: agent, Ordinal: ordinal, JoinedAt: at(ordinal), LastSeenAt: at(100 + ordinal).Add(3 * time.Millisecond),
		Kind: stick.KindHarness, DisplayName: "Agent " + agent,
		Process:    stick.Process{HostID: "host-" + agent, BootID: "boot-1", PID: 4000 + ordinal, StartedAt: at(-50).Add(125 * time.Millisecond)},
		SyncCursor: int64(10 * ordinal), ReclaimToken: "token-" + agent,
	}
}

// Members come in ordinal order, whatever the order they were saved in;
// saving a member again replaces every field; deleting one removes it
// only, and deleting one that is not there is no error.
func testMembers(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	c, a, b := member("room_1", "c", 3), member("room_1", "a", 1), member("room_1", "b", 2)
	bare := stick.Member{RoomID: "room_1", AgentID: "d", Ordinal: 4, JoinedAt: at(4), LastSeenAt: at(4), Kind: stick.KindOneShot}
	other := member("room_2", "a", 1)
	e.update(e.s, func(tx stick.Tx) error {
		for _, m := range []stick.Member{c, a, other, bare, b} {
			if err := tx.SaveMember(m); err != nil {
				return err
			}
		}
		got, err := tx.Members("room_1")
		if err != nil {
			return err
		}
		mustEqual(e, "members read in the transaction that saved them", got, []stick.Member{a, b, c, bare}, normAll(normMember))
		return nil
	})
	members := func(room string) []stick.Member {
		return read(e, func(tx stick.Tx) ([]stick.Member, error) { return tx.Members(room) })
	}
	mustEqual(e, "members of room_1", members("room_1"), []stick.Member{a, b, c, bare}, normAll(normMember))
	mustEqual(e, "members of room_2", members("room_2"), []stick.Member{other}, normAll(normMember))
	if got := members("room_none"); len(got) != 0 {
		e.t.Fatalf("members of a room that does not exist: %+v", got)
	}

	// Saved again: a moves to the end with new facts, and loses its
	// process, display name and token.
	a2 := stick.Member{RoomID: "room_1", AgentID: "a", Ordinal: 9, JoinedAt: at(200), LastSeenAt: at(300), Kind: stick.KindProcess, SyncCursor: 77}
	e.update(e.s, func(tx stick.Tx) error { return tx.SaveMember(a2) })
	mustEqual(e, "members after a was saved again", members("room_1"), []stick.Member{b, c, bare, a2}, normAll(normMember))

	e.update(e.s, func(tx stick.Tx) error {
		if err := tx.DeleteMember("room_1", "b"); err != nil {
			return err
		}
		if err := tx.DeleteMember("room_1", "nobody"); err != nil {
			e.t.Errorf("deleting a member that is not there: %v", err)
		}
		return tx.DeleteMember("room_2", "c")
	})
	mustEqual(e, "members of room_1 after b left", members("room_1"), []stick.Member{c, bare, a2}, normAll(normMember))
	mustEqual(e, "members of room_2 after a delete in room_1", members("room_2"), []stick.Member{other}, normAll(normMember))
}
