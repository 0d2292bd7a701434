package storetest

import (
	"strconv"
	"time"

	"github.com/stickhq/stick/stick"
)

var memberCases = []testCase{
	{"SaveReadReplaceDelete", testMembers},
	{"HandleStandbyAndWakeRoundTrip", testMemberWakeFields},
	{"HandleIsUniqueInItsRoom", testHandleUnique},
}

func itoa(n int) string { return strconv.Itoa(n) }

// member is a member of room with every field set.
func member(room, agent string, ordinal int) stick.Member {
	return stick.Member{
		RoomID: room, AgentID: agent, Ordinal: ordinal, JoinedAt: at(ordinal), LastSeenAt: at(100 + ordinal).Add(3 * time.Millisecond),
		Kind: stick.KindHarness, DisplayName: "Agent " + agent,
		Process:    stick.Process{HostID: "host-" + agent, BootID: "boot-1", PID: 4000 + ordinal, StartedAt: at(-50).Add(125 * time.Millisecond)},
		SyncCursor: int64(10 * ordinal), ReclaimToken: "token-" + agent,
		Handle: "h-" + agent, Standby: true, WakeTransports: []string{"claude-inbox", "codex-queue"}, WokenSeq: int64(5 * ordinal),
		WakeState: "queued", WakeTransport: "claude-inbox", WakeAt: at(200 + ordinal).Add(17 * time.Millisecond),
		AddressedSeq: int64(7 * ordinal), InterruptSeq: int64(6 * ordinal),
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
	// process, display name, token, handle, standby and wake record.
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

// A member's handle, standby, wake transports and wake record read back
// as saved, in the transaction that saved them and later, each alone and
// all at once; saving the member again with each of them zero (no
// handle, no transports, no wake yet: WakeAt the zero time) clears it.
func testMemberWakeFields(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"))
	base := stick.Member{RoomID: "room_1", AgentID: "a", Ordinal: 1, JoinedAt: at(1), LastSeenAt: at(2), Kind: stick.KindHarness}
	full := member("room_1", "a", 1)
	steps := []stick.Member{full, base}
	for _, set := range []func(*stick.Member){
		func(m *stick.Member) { m.Handle = "reviewer-2" },
		func(m *stick.Member) { m.Standby = true },
		func(m *stick.Member) { m.WakeTransports = []string{"codex-queue"} },
		func(m *stick.Member) { m.WokenSeq = 1 << 40 },
		func(m *stick.Member) { m.AddressedSeq = 1<<40 + 1 },
		func(m *stick.Member) { m.InterruptSeq = 1<<40 + 2 },
		func(m *stick.Member) { m.WakeState = "ambiguous" },
		func(m *stick.Member) { m.WakeTransport = "codex-queue" },
		func(m *stick.Member) { m.WakeAt = at(-3).Add(999 * time.Millisecond) },
	} {
		m := base
		set(&m)
		steps = append(steps, m, base)
	}
	steps = append(steps, full)
	for i, want := range steps {
		e.update(e.s, func(tx stick.Tx) error {
			if err := tx.SaveMember(want); err != nil {
				return err
			}
			got, err := tx.Members("room_1")
			if err != nil {
				return err
			}
			mustEqual(e, "the member read in the transaction that saved it, step "+itoa(i+1), got, []stick.Member{want}, normAll(normMember))
			return nil
		})
		got := read(e, func(tx stick.Tx) ([]stick.Member, error) { return tx.Members("room_1") })
		mustEqual(e, "the member after save "+itoa(i+1), got, []stick.Member{want}, normAll(normMember))
	}
}

// Two members of one room cannot have the same handle: the Update that
// saves the second fails, as a store failure (internal: the Service checks
// a handle is free before it saves one, so the store's check is a
// backstop, never an answer to a caller), and keeps nothing. Members with
// no handle are many, the same handle in two rooms is no clash, saving a
// member again with its own handle is no clash, and a handle its member
// gave up is free.
func testHandleUnique(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	with := func(room, agent string, ordinal int, handle string) stick.Member {
		m := member(room, agent, ordinal)
		m.Handle = handle
		return m
	}
	a, b, c := with("room_1", "a", 1, "rev"), with("room_1", "b", 2, ""), with("room_1", "c", 3, "")
	elsewhere := with("room_2", "d", 1, "rev")
	e.update(e.s, func(tx stick.Tx) error {
		for _, m := range []stick.Member{a, b, c, elsewhere} {
			if err := tx.SaveMember(m); err != nil {
				return err
			}
		}
		return nil
	})
	members := func(room string) []stick.Member {
		return read(e, func(tx stick.Tx) ([]stick.Member, error) { return tx.Members(room) })
	}
	mustEqual(e, "room_1 with one handle and two members without", members("room_1"), []stick.Member{a, b, c}, normAll(normMember))
	mustEqual(e, "room_2 with the handle room_1 has too", members("room_2"), []stick.Member{elsewhere}, normAll(normMember))

	clash := with("room_1", "x", 4, "rev")
	renamed := with("room_1", "b", 2, "rev")
	for what, ms := range map[string][]stick.Member{
		"a new member with a's handle":                      {clash},
		"b taking a's handle":                               {renamed},
		"a new member with a's handle, after another write": {with("room_1", "y", 5, "other"), clash},
	} {
		err := e.s.Update(e.ctx, func(tx stick.Tx) error {
			for _, m := range ms {
				if err := tx.SaveMember(m); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			e.t.Fatalf("%s: the update succeeded; a handle must be unique in its room", what)
		}
		if code := stick.ErrorCode(err); code != stick.CodeInternal {
			e.t.Errorf("%s: %v (code %s); want the store's own failure (internal), not an answer for a caller", what, err, code)
		}
		mustEqual(e, "room_1 after "+what, members("room_1"), []stick.Member{a, b, c}, normAll(normMember))
	}

	a2 := a
	a2.LastSeenAt = at(500)
	e.update(e.s, func(tx stick.Tx) error { return tx.SaveMember(a2) })
	a3 := with("room_1", "a", 1, "lead")
	e.update(e.s, func(tx stick.Tx) error {
		if err := tx.SaveMember(a3); err != nil {
			return err
		}
		return tx.SaveMember(clash)
	})
	mustEqual(e, "room_1 once a gave its handle up and x took it", members("room_1"), []stick.Member{a3, b, c, clash}, normAll(normMember))
}
