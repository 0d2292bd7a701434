package stick

import (
	"context"
	"slices"
	"time"
)

// DeclareChannels sets the channels the room's project declares (see
// ChannelSpec and ProjectFile): a frontend reads the project's file when
// a member joins and declares what it holds; none declared makes the room
// offer DefaultChannels. Declaring what the room has changes nothing.
// Notes already posted keep their channel.
//
// Errors: invalid_argument (channels[i].*), room_not_found, room_closed, unknown_member.
func (s *Service) DeclareChannels(ctx context.Context, c Caller, roomID string, specs []ChannelSpec) error {
	if err := s.act(ActionDeclareChannels, c); err != nil {
		return err
	}
	if err := ValidateChannels(specs); err != nil {
		return err
	}
	return s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		if slices.Equal(sn.room.Channels, specs) || len(sn.room.Channels) == 0 && len(specs) == 0 {
			return nil
		}
		sn.room.Channels = slices.Clone(specs)
		sn.room.UpdatedAt = sn.now
		if err := saveRoom(tx, sn.room); err != nil {
			return err
		}
		for _, ch := range specs {
			if err := sn.retain(tx, ch); err != nil {
				return err
			}
		}
		return nil
	})
}

// ListChannels returns the channels the room offers, DefaultChannel
// first, each with how many notes it keeps and when the last was posted.
//
// Errors: invalid_argument, room_not_found.
func (s *Service) ListChannels(ctx context.Context, roomID string) ([]ChannelInfo, error) {
	if err := s.allow(ActionListChannels); err != nil {
		return nil, err
	}
	if err := requireRoomID(roomID); err != nil {
		return nil, err
	}
	var out []ChannelInfo
	err := s.store.View(ctx, func(tx Tx) error {
		r, ok, err := tx.Room(roomID)
		if err != nil {
			return err
		}
		if !ok || !s.reaches(r) {
			return roomNotFound(roomID)
		}
		stats, err := tx.ChannelStats(roomID)
		if err != nil {
			return err
		}
		out = out[:0]
		for _, c := range roomChannels(r.Channels) {
			info := ChannelInfo{ChannelSpec: c}
			for _, st := range stats {
				if st.Channel == c.Name {
					info.Notes = st.Notes
					last := st.Last
					info.LastActivity = &last
				}
			}
			out = append(out, info)
		}
		return nil
	})
	return out, err
}

// History returns the newest events of a room that match q's filters,
// oldest first (see HistoryQuery): a channel's notes, a member's, notes
// of a type, a span of time, pages back with Before. A channel the room
// does not offer is refused, as when posting to it.
//
// Errors: invalid_argument (limit, channels, types, since/until), room_not_found.
func (s *Service) History(ctx context.Context, q HistoryQuery) ([]Event, error) {
	if err := s.allow(ActionHistory); err != nil {
		return nil, err
	}
	if err := requireRoomID(q.RoomID); err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		q.Limit = DefaultEventLimit
	}
	if q.Limit < 0 || q.Limit > MaxEventLimit {
		return nil, invalidArg("limit", "limit must be between 0 (the default, %d) and %d, got %d", DefaultEventLimit, MaxEventLimit, q.Limit)
	}
	if q.Before < 0 {
		return nil, invalidArg("before", "before must be an event_seq (positive), got %d", q.Before)
	}
	if q.SinceAgo < 0 || q.UntilAgo < 0 {
		return nil, invalidArg("since", "a span back from now must be positive")
	}
	now := s.clock.Now()
	if q.SinceAgo > 0 {
		q.Since = now.Add(-q.SinceAgo)
	}
	if q.UntilAgo > 0 {
		q.Until = now.Add(-q.UntilAgo)
	}
	q.SinceAgo, q.UntilAgo = 0, 0
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return nil, invalidArg("since", "since (%s) must be before until (%s)", q.Since.Format(time.RFC3339), q.Until.Format(time.RFC3339))
	}
	for _, t := range q.Types {
		if !t.Known() {
			return nil, invalidArg("types", "%s is not an event type; the types are %s", Quote(string(t)), EventTypeNames())
		}
	}
	for _, t := range q.NoteTypes {
		if err := checkNoteType("message_types", t); err != nil {
			return nil, err
		}
	}
	for _, f := range q.From {
		if err := validateAgentID("from", f); err != nil {
			return nil, err
		}
	}
	var out []Event
	err := s.store.View(ctx, func(tx Tx) error {
		r, ok, err := tx.Room(q.RoomID)
		if err != nil {
			return err
		}
		if !ok || !s.reaches(r) {
			return roomNotFound(q.RoomID)
		}
		sn := &snapshot{room: r}
		for _, name := range q.Channels {
			if err := validateChannelName("channels", name); err != nil {
				return err
			}
			if _, err := sn.channel(name, ""); err != nil {
				return err
			}
		}
		out, err = tx.History(q)
		return err
	})
	return out, err
}
