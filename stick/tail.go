package stick

import "context"

// EventTail is the newest events of a room, oldest first.
type EventTail struct {
	EventPage
	// Earlier is true when the room has events before the first of Events:
	// RoomEvents from 0 pages through them, EventsBefore backwards.
	Earlier bool `json:"earlier"`
}

// TailEvents returns the newest n events of a room (0 means
// DefaultEventLimit, at most MaxEventLimit), oldest first, as a page whose
// Cursor is the newest event's Seq (FollowEvents goes on from there) and
// that never HasMore.
//
// Errors: invalid_argument (tail), room_not_found.
func (s *Service) TailEvents(ctx context.Context, roomID string, n int) (EventTail, error) {
	if err := s.allow(ActionTailEvents); err != nil {
		return EventTail{}, err
	}
	return s.tail(ctx, roomID, 0, n)
}

// EventsBefore returns the newest n events of a room whose Seq is below
// before (0 means DefaultEventLimit, at most MaxEventLimit), oldest first:
// the log read backwards a page at a time, each page's first Seq the next
// page's before, for as long as Earlier is true. It reads only the page,
// however long the log is.
//
// Errors: invalid_argument (before, tail), room_not_found.
func (s *Service) EventsBefore(ctx context.Context, roomID string, before int64, n int) (EventTail, error) {
	if err := s.allow(ActionEventsBefore); err != nil {
		return EventTail{}, err
	}
	if before <= 0 {
		return EventTail{}, invalidArg("before", "before must be the event_seq of an event of the room, got %d", before).
			WithHint("pass the event_seq of the first event of the page you have")
	}
	return s.tail(ctx, roomID, before, n)
}

// tail reads the newest n events before before (0: of the whole log).
func (s *Service) tail(ctx context.Context, roomID string, before int64, n int) (EventTail, error) {
	if err := requireRoomID(roomID); err != nil {
		return EventTail{}, err
	}
	if n < 0 || n > MaxEventLimit {
		return EventTail{}, invalidArg("tail", "tail must be between 1 and %d (0 for %d), got %d", MaxEventLimit, DefaultEventLimit, n)
	}
	if n == 0 {
		n = DefaultEventLimit
	}
	var out EventTail
	err := s.store.View(ctx, func(tx Tx) error {
		if err := s.roomExists(tx, roomID); err != nil {
			return err
		}
		var evs []Event
		var err error
		if before > 0 {
			evs, err = tx.EventsBefore(roomID, before, n+1)
		} else {
			evs, err = tx.LatestEvents(roomID, n+1)
		}
		if err != nil {
			return err
		}
		if out.Earlier = len(evs) > n; out.Earlier {
			evs = evs[1:]
		}
		if evs == nil {
			evs = []Event{}
		}
		out.Events = evs
		if len(evs) > 0 {
			out.Cursor = evs[len(evs)-1].Seq
		}
		return nil
	})
	return out, err
}
