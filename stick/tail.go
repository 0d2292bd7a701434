package stick

import "context"

// EventTail is the newest events of a room, oldest first.
type EventTail struct {
	EventPage
	// Earlier is true when the room has events before the first of Events:
	// RoomEvents from 0 pages through them.
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
		evs, err := tx.LatestEvents(roomID, n+1)
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
