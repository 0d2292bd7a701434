package stick

import (
	"context"
	"time"
)

// Transcript is a whole room at one instant: its state and members, its
// log and its document, for an export that a new member can read instead
// of the repository's history.
type Transcript struct {
	Room RoomStatus `json:"room"`
	// After is the event_seq the log starts after (0: the whole log).
	After int64 `json:"after"`
	// Events are the room's events after After, oldest first, handoffs in full.
	Events   []Event   `json:"events"`
	Document Document  `json:"document"`
	TakenAt  time.Time `json:"taken_at"`
}

// Transcript reads a room's state, its events after after and its current
// document in one read transaction, so they agree with each other. Closed
// rooms can be read; no membership is needed.
//
// Errors: invalid_argument (room_id, after), room_not_found.
func (s *Service) Transcript(ctx context.Context, roomID string, after int64) (Transcript, error) {
	if err := s.allow(ActionTranscript); err != nil {
		return Transcript{}, err
	}
	if err := requireRoomID(roomID); err != nil {
		return Transcript{}, err
	}
	if after < 0 {
		return Transcript{}, invalidArg("after", "after must be an event_seq of 0 or more, not %d", after).
			WithHint("give 0 for the whole log, or the event_seq after which to start (see get_room_events)")
	}
	var out Transcript
	err := s.store.View(ctx, func(tx Tx) error {
		sn, err := s.load(tx, roomID)
		if err != nil {
			return err
		}
		out = Transcript{After: after, Events: []Event{}, TakenAt: sn.now}
		if out.Room, err = s.status(tx, sn); err != nil {
			return err
		}
		for cursor := after; ; {
			page, err := tx.Events(roomID, cursor, MaxEventLimit)
			if err != nil {
				return err
			}
			out.Events = append(out.Events, page...)
			if len(page) < MaxEventLimit {
				break
			}
			cursor = page[len(page)-1].Seq
		}
		out.Document, err = currentDoc(tx, roomID)
		return err
	})
	return out, err
}

// Digest is what a reader of a transcript needs first: the latest handoff,
// the questions nobody has answered and the decisions taken.
type Digest struct {
	// Handoff is the newest release or pass event of the transcript, nil if none.
	Handoff *Event
	// OpenQuestions are the question notes no answer note of the
	// transcript replies to, oldest first.
	OpenQuestions []Event
	// Decisions are the decision notes, oldest first.
	Decisions []Event
}

// Digest sums up the transcript's events. It sees only the transcript's
// events, so a question answered before its After counts as answered only
// if the answer is in it too.
func (t Transcript) Digest() Digest {
	var d Digest
	answered := map[int64]bool{}
	for _, e := range t.Events {
		if e.Type == EventNote && e.Ref != 0 && e.MessageType == NoteAnswer {
			answered[e.Ref] = true
		}
	}
	for i := range t.Events {
		e := &t.Events[i]
		switch {
		case (e.Type == EventRelease || e.Type == EventPass) && e.Handoff != nil:
			d.Handoff = e
		case e.Type == EventNote && e.MessageType == NoteQuestion && !answered[e.Seq]:
			d.OpenQuestions = append(d.OpenQuestions, *e)
		case e.Type == EventNote && e.MessageType == NoteDecision:
			d.Decisions = append(d.Decisions, *e)
		}
	}
	return d
}
