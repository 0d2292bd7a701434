package stick

import "time"

// logBell is the bell of a room's log (Store.Rung with it as the agent):
// every transaction that appends an event to the room rings it, so a
// reader that follows the log (FollowEvents: a page's live stream, a
// watcher's long poll) wakes for its room's events and for no other
// room's commits. No agent id can be it: agent ids have no spaces.
const logBell = " log"

// appendEvent appends e to its room's log and rings the log's bell at
// commit. Every event of the domain is appended through it.
func appendEvent(tx Tx, e Event) (Event, error) {
	ev, err := tx.AppendEvent(e)
	if err == nil {
		tx.Ring(e.RoomID, logBell)
	}
	return ev, err
}

// logRefresh is how often a reader that follows a room's log by its bells
// reads it anyway, as a waiter for its turn does (bellRefreshMax): a bell
// is missed when its writer dies between its commit and its ring, and a
// store whose files were deleted under it rings nothing at all; this
// bounds how late such a reader learns of either.
const logRefresh = bellRefreshMax

// logWake is what wakes a reader of a room's log between two reads: the
// log's bell and a refresh timer on the Service's clock, or every commit
// from a store that cannot ring bells.
type logWake struct {
	bell, changed <-chan struct{}
	refresh       <-chan time.Time
	stop          func()
}

// watchLog subscribes to roomID's log; call it before reading the log, so
// that no append after the read is missed, and stop after.
func (s *Service) watchLog(roomID string) logWake {
	if bell := s.store.Rung(roomID, logBell); bell != nil {
		refresh, stop := s.clock.Timer(logRefresh)
		return logWake{bell: bell, refresh: refresh, stop: stop}
	}
	return logWake{changed: s.store.Changed(), stop: func() {}}
}
