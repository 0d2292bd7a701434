package stick

// stateBell is the bell of a room's state (Store.Rung with it as the
// agent): every transaction that changes the room's row or its members
// rings it, so a reader that shows the room's state (WatchState: a page's
// live roster) wakes for its room's changes and for no other room's
// commits. No agent id can be it: agent ids have no spaces.
const stateBell = " state"

// saveRoom saves r and rings its state's bell at commit. Every change of
// a room's row goes through it.
func saveRoom(tx Tx, r Room) error {
	if err := tx.SaveRoom(r); err != nil {
		return err
	}
	tx.Ring(r.ID, stateBell)
	return nil
}

// saveMember saves m and rings its room's state's bell at commit. Every
// change of a member goes through it.
func saveMember(tx Tx, m Member) error {
	if err := tx.SaveMember(m); err != nil {
		return err
	}
	tx.Ring(m.RoomID, stateBell)
	return nil
}

// deleteMember deletes a member and rings its room's state's bell at
// commit.
func deleteMember(tx Tx, roomID, agentID string) error {
	if err := tx.DeleteMember(roomID, agentID); err != nil {
		return err
	}
	tx.Ring(roomID, stateBell)
	return nil
}
