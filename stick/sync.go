package stick

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// SyncRequest is one Sync call: notes to post, then what to read.
type SyncRequest struct {
	// Outbox holds notes to post first, in order (see Post).
	Outbox []Note
	// MaxItems bounds the events returned: 0 means DefaultSyncItems; it
	// must not be negative nor larger than MaxEventLimit.
	MaxItems int
	// IncludeSelf also returns the caller's own events.
	IncludeSelf bool
	// Wait, when positive and nothing is new, blocks until an event
	// arrives or it elapses; it must not be negative nor longer than
	// MaxWaitLimit.
	Wait time.Duration
	// ManualAck keeps the cursor where it is on return; it then moves only
	// by AckThrough. By default the cursor advances over what is returned.
	ManualAck bool
	// AckThrough, with ManualAck, moves the cursor to this event_seq (never
	// back, never past the room's last event).
	AckThrough *int64
	// CursorReset moves the cursor back to the start first, to replay the
	// whole log.
	CursorReset bool
	// Channels, when set, returns only the notes of these channels (and
	// every event that is not a note); the cursor still moves over the rest.
	Channels []string
}

// SyncResult is what Sync returns.
type SyncResult struct {
	RoomID string `json:"room_id"`
	// Sent are the outbox's notes as posted (or found, for a duplicate).
	Sent []PostResult `json:"sent"`
	// Addressed are the received notes addressed to the caller, oldest
	// first, given before the rest so a member sees first what it was
	// asked; they are not repeated in Received.
	Addressed []Event `json:"addressed,omitempty"`
	// Received are the other events after the cursor, oldest first: every
	// type, handoffs included.
	Received []Event `json:"received"`
	// Cursor is the member's cursor after the call: the last event it has
	// been given (and acknowledged, with ManualAck).
	Cursor int64 `json:"cursor"`
	// HasMore is true when more events wait after those received.
	HasMore bool `json:"has_more"`
	// Status is ready (events received), empty (none, no wait) or timeout
	// (none within Wait).
	Status string `json:"status"`
}

// Sync is the one call a member needs to follow a room's log: it posts the
// outbox, then returns the events this member has not been given yet,
// oldest first, from a cursor the store keeps per member (so a restart,
// or another process of the same member, goes on where it left off). The
// cursor advances over what is returned, or with ManualAck only through
// AckThrough; CursorReset replays the log from the start. With Wait, a
// call that finds nothing new waits for the next event. Every call
// refreshes the member's presence. A closed room can still be read; only
// posting to it is refused.
//
// Errors: invalid_argument (max_items, wait, ack_through, outbox[i].*),
// room_not_found, room_closed (an outbox for a closed room),
// unknown_member, and ctx's error when it ends during a wait.
func (s *Service) Sync(ctx context.Context, c Caller, roomID string, req SyncRequest) (SyncResult, error) {
	if err := s.act(ActionSync, c); err != nil {
		return SyncResult{}, err
	}
	if err := c.validate(); err != nil {
		return SyncResult{}, err
	}
	if err := requireRoomID(roomID); err != nil {
		return SyncResult{}, err
	}
	if err := req.validate(); err != nil {
		return SyncResult{}, err
	}
	limit := req.MaxItems
	if limit == 0 {
		limit = DefaultSyncItems
	}
	out := SyncResult{RoomID: roomID, Sent: []PostResult{}}
	skip := c.AgentID
	if req.IncludeSelf {
		skip = ""
	}
	first := true
	deadline := s.clock.Now().Add(req.Wait)
	for {
		changed := s.store.Changed()
		if !first {
			// Woken by a commit somewhere: a cheap read first, and the
			// write (cursor, presence) only when there is something new.
			var news bool
			err := s.store.View(ctx, func(tx Tx) error {
				evs, err := tx.EventsFor(roomID, out.Cursor, 1, skip)
				news = len(evs) > 0
				return err
			})
			if err != nil {
				return SyncResult{RoomID: roomID}, err
			}
			if !news {
				if done, err := s.syncWait(ctx, deadline, changed); done || err != nil {
					return out.empty(req), err
				}
				continue
			}
		}
		err := s.update(ctx, c, roomID, true, func(tx Tx, sn *snapshot) error {
			m := sn.member(c.AgentID)
			if first {
				out.Sent = out.Sent[:0] // a retried transaction posts afresh
				if len(req.Outbox) > 0 && sn.room.State == StateClosed {
					return sn.closedErr()
				}
				for i, n := range req.Outbox {
					res, err := post(tx, sn, c, n, fmt.Sprintf("outbox[%d].", i))
					if err != nil {
						return err
					}
					out.Sent = append(out.Sent, res)
				}
				if req.CursorReset {
					m.SyncCursor = 0
				}
				if req.AckThrough != nil {
					last, err := tx.LastSeq(roomID)
					if err != nil {
						return err
					}
					if *req.AckThrough > last {
						return invalidArg("ack_through", "ack_through %d is past the room's last event, %d", *req.AckThrough, last).
							WithHint("acknowledge the event_seq of the last event you processed")
					}
					m.SyncCursor = max(m.SyncCursor, *req.AckThrough)
				}
			}
			evs, err := tx.EventsFor(roomID, m.SyncCursor, limit+1, skip)
			if err != nil {
				return err
			}
			out.HasMore = len(evs) > limit
			out.Received = evs[:min(len(evs), limit)]
			given := out.Received
			if first {
				for _, name := range req.Channels {
					if _, err := sn.channel(name, ""); err != nil {
						return err
					}
				}
			}
			out.Addressed, out.Received = splitAddressed(inChannels(given, req.Channels), c.AgentID)
			if !req.ManualAck {
				switch {
				case out.HasMore:
					m.SyncCursor = given[len(given)-1].Seq
				default:
					// Everything after the cursor was returned, or was the
					// caller's own: all of it has been seen.
					last, err := tx.LastSeq(roomID)
					if err != nil {
						return err
					}
					m.SyncCursor = max(m.SyncCursor, last)
				}
			}
			out.Cursor = m.SyncCursor
			return sn.saveMember(tx, m)
		})
		if err != nil {
			return SyncResult{RoomID: roomID}, err
		}
		first = false
		if out.Received == nil {
			out.Received = []Event{}
		}
		if len(out.Received)+len(out.Addressed) > 0 {
			out.Status = "ready"
			return out, nil
		}
		if done, err := s.syncWait(ctx, deadline, changed); done || err != nil {
			return out.empty(req), err
		}
	}
}

// syncWait waits for a commit until deadline; done is true when the wait
// is over (deadline passed, service shut down), err when ctx ended.
func (s *Service) syncWait(ctx context.Context, deadline time.Time, changed <-chan struct{}) (done bool, err error) {
	left := deadline.Sub(s.clock.Now())
	if left <= 0 {
		return true, nil
	}
	timer, stop := s.clock.Timer(left)
	defer stop()
	select {
	case <-ctx.Done():
		return true, ctx.Err()
	case <-s.done:
		return true, nil
	case <-timer:
		return true, nil
	case <-changed:
		return false, nil
	}
}

// empty is out as returned when nothing new came: status empty, or
// timeout after a wait.
func (out SyncResult) empty(req SyncRequest) SyncResult {
	out.Status = "empty"
	if req.Wait > 0 {
		out.Status = "timeout"
	}
	return out
}

func (r SyncRequest) validate() error {
	switch {
	case r.MaxItems < 0 || r.MaxItems > MaxEventLimit:
		return invalidArg("max_items", "max_items must be between 0 (the default, %d) and %d, got %d", DefaultSyncItems, MaxEventLimit, r.MaxItems)
	case r.Wait < 0 || r.Wait > MaxWaitLimit:
		return waitSecondsErr(strconv.FormatFloat(r.Wait.Seconds(), 'f', -1, 64))
	case r.AckThrough != nil && !r.ManualAck:
		return invalidArg("ack_through", "ack_through moves the cursor only with auto_advance false").
			WithHint("set auto_advance to false to acknowledge by hand, or leave ack_through out")
	case r.AckThrough != nil && *r.AckThrough < 0:
		return invalidArg("ack_through", "ack_through must be an event_seq, got %d", *r.AckThrough)
	case len(r.Channels) > MaxChannels:
		return invalidArg("channels", "channels names %d channels; at most %d are allowed", len(r.Channels), MaxChannels)
	case len(r.Outbox) > MaxEventLimit:
		return invalidArg("outbox", "outbox holds %d notes; at most %d are allowed per call", len(r.Outbox), MaxEventLimit)
	}
	for i, n := range r.Outbox {
		if err := n.validate(fmt.Sprintf("outbox[%d].", i)); err != nil {
			return err
		}
	}
	for _, name := range r.Channels {
		if err := validateChannelName("channels", name); err != nil {
			return err
		}
	}
	return nil
}
