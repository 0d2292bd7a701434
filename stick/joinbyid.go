package stick

// Joining a room by its id: the room a reader found in a list or on a
// hub's page, reached the same way whether it was made by a path, a key
// or a name (a path on another host, say, which this host cannot
// resolve).

// checkByID refuses a join by RoomID that also gives a path, a name or
// what only a join by path or name means.
func (req JoinRequest) checkByID() error {
	switch {
	case req.Path != "" || req.Name != "":
		return invalidArg("room_id", "give one of context_path, name and room_id, not several").
			WithHint("join the room of id %s alone, or drop room_id", Quote(req.RoomID))
	case req.ForceNew:
		return invalidArg("force_new", "force_new nests a new room below a path's room; a join by room_id joins a room that exists").
			WithHint("drop force_new to join the room %s", Quote(req.RoomID))
	case req.Conclude:
		return invalidArg("conclude", "conclude makes the caller responsible for the conclusion of a room its join creates; a join by room_id creates none").
			WithHint("drop conclude; an operator names the member responsible for a room's conclusion")
	}
	return nil
}

// byID returns the open room of id inside tx: room_not_found when there
// is none (or s does not reach it, as for every read by id), room_closed
// when it is closed.
func (s *Service) byID(tx Tx, id string) (Room, error) {
	r, ok, err := tx.Room(id)
	switch {
	case err != nil:
		return Room{}, err
	case !ok || !s.reaches(r):
		return Room{}, roomNotFound(id)
	case r.State == StateClosed:
		return Room{}, Errorf(CodeRoomClosed, "room %s is closed", id).With("room_id", id).
			WithHint("the room is read-only; a join by its name or path starts a new room")
	}
	return r, nil
}
