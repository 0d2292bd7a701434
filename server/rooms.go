package server

import (
	"context"
	"time"

	"github.com/stickhq/stick/stick"
)

// The rooms: listing, joining, reading a room's state and its log.

type listQuery struct {
	ContextPath string `query:"context_path" jsonschema:"The rooms around this path on the hub's host."`
	Key         string `query:"key" jsonschema:"The rooms of this workspace key, such as github.com/acme/api."`
	Name        string `query:"name" jsonschema:"The room of this name."`
}

type roomsOut struct {
	Rooms []stick.RoomSummary `json:"rooms"`
}

// listRooms lists every room the principal reaches, or those around a
// path, of a key or of a name: at most one of them.
func listRooms(c *call, q listQuery) (roomsOut, error) {
	if err := oneOf(map[string]string{"context_path": q.ContextPath, "key": q.Key, "name": q.Name}); err != nil {
		return roomsOut{}, err
	}
	var rooms []stick.RoomSummary
	var err error
	switch {
	case q.Key != "":
		rooms, err = c.svc.RoomsByKey(c.ctx, q.Key)
	case q.Name != "":
		var r stick.RoomSummary
		if r, err = c.svc.RoomNamed(c.ctx, q.Name); err == nil {
			rooms = []stick.RoomSummary{r}
		}
	default:
		rooms, err = c.svc.ListRooms(c.ctx, q.ContextPath)
	}
	if rooms == nil {
		rooms = []stick.RoomSummary{}
	}
	return roomsOut{Rooms: rooms}, err
}

// oneOf refuses more than one of the given fields (by name) set.
func oneOf(fields map[string]string) error {
	var set []string
	for name, v := range fields {
		if v != "" {
			set = append(set, name)
		}
	}
	if len(set) > 1 {
		return stick.Errorf(stick.CodeInvalidArgument, "give one of context_path, key and name, not several").With("field", set[0]).
			WithHint("ask for a room by its name, its key or a path, one at a time")
	}
	return nil
}

type joinIn struct {
	Name         string `json:"name,omitempty" jsonschema:"A room's name (a-z0-9._-): joined if open, else created."`
	Key          string `json:"key,omitempty" jsonschema:"Instead of name: the key of an open room's workspace, such as github.com/acme/api."`
	ContextPath  string `json:"context_path,omitempty" jsonschema:"Instead of name: a path on the hub's host, whose room is joined or created."`
	ForceNew     bool   `json:"force_new,omitempty" jsonschema:"With context_path: nest a new room under an existing one."`
	ReclaimToken string `json:"reclaim_token,omitempty" jsonschema:"From an earlier join: be that member again."`
	Conclude     bool   `json:"conclude,omitempty" jsonschema:"With name: if this join creates the room, you are responsible for its conclusion."`
}

// joinRoom joins the room of a name (made if none is open), of a key (the
// open room of that workspace on the hub), or of a path on the hub's host,
// as the member the request's credential and client make.
func joinRoom(c *call, in joinIn) (stick.JoinResult, error) {
	if err := oneOf(map[string]string{"context_path": in.ContextPath, "key": in.Key, "name": in.Name}); err != nil {
		return stick.JoinResult{}, err
	}
	req := stick.JoinRequest{Path: in.ContextPath, Name: in.Name, ForceNew: in.ForceNew, ReclaimToken: in.ReclaimToken, Conclude: in.Conclude}
	if in.Key != "" {
		var err error
		if req.Path, err = keyedPath(c.ctx, c.svc, in.Key); err != nil {
			return stick.JoinResult{}, err
		}
	}
	res, err := c.svc.JoinPath(c.ctx, c.caller, req)
	if err == nil && res.NewMember {
		c.s.metrics.joins.Inc()
	}
	return res, err
}

// keyedPath returns the path of the one open room of key, which a join by
// that path on the hub's host reaches. A key names a workspace, and its
// room is made by joining a path in it; none open is room_not_found, and
// two (two clones on the hub's host) are invalid_argument.
func keyedPath(ctx context.Context, svc *stick.Service, key string) (string, error) {
	rooms, err := svc.RoomsByKey(ctx, key)
	if err != nil {
		return "", err
	}
	var open []stick.RoomSummary
	for _, r := range rooms {
		if r.State != stick.StateClosed {
			open = append(open, r)
		}
	}
	switch len(open) {
	case 0:
		return "", stick.Errorf(stick.CodeRoomNotFound, "no open room has the key %s", stick.Quote(key)).With("key", key).
			WithHint("a room of a workspace is made by a member joining a path in it; join by name for a room of the team's own")
	case 1:
		return open[0].CanonicalPath, nil
	}
	ids := make([]string, len(open))
	for i, r := range open {
		ids[i] = r.RoomID
	}
	return "", stick.Errorf(stick.CodeInvalidArgument, "%d open rooms have the key %s", len(open), stick.Quote(key)).With("field", "key").
		With("room_ids", ids).WithHint("join one of them by its context_path (GET /api/v1/rooms?key=... lists them)")
}

// roomState reads a room's state.
func roomState(c *call, _ struct{}) (stick.RoomStatus, error) {
	return c.svc.RoomState(c.ctx, c.room)
}

type eventsQuery struct {
	After  int64 `query:"after" jsonschema:"Events after this event_seq (a page's next_cursor); 0 for the beginning."`
	Limit  int   `query:"limit" jsonschema:"Page size (default 50, at most 1000)."`
	WaitMS int64 `query:"wait_ms" jsonschema:"With no event after 'after': wait up to this long for one (at most 600000)."`
}

type eventsOut struct {
	RoomID string        `json:"room_id"`
	Events []stick.Event `json:"events"`
	// NextCursor is the after of the next call.
	NextCursor int64 `json:"next_cursor"`
	HasMore    bool  `json:"has_more"`
	// Closed is true when the room is closed and the page reaches the end
	// of its log: nothing more will come.
	Closed bool `json:"closed"`
}

// roomEvents returns the room's events after a cursor at once when there
// are any, else waits up to wait_ms for one (a long poll that the hub's
// stop ends with an empty page).
func roomEvents(c *call, q eventsQuery) (eventsOut, error) {
	wait, err := waitMS(&q.WaitMS, 0, "ask again after an empty page to wait longer")
	if err != nil {
		return eventsOut{}, err
	}
	st, err := c.svc.RoomState(c.ctx, c.room)
	if err != nil {
		return eventsOut{}, err
	}
	closed := st.State == stick.StateClosed
	var page stick.EventPage
	if wait == 0 || closed || st.LastEventSeq > q.After {
		page, err = c.svc.RoomEvents(c.ctx, c.room, q.After, q.Limit)
	} else {
		page, err = follow(c, q, wait)
		if err == nil && len(page.Events) > 0 {
			st, err = c.svc.RoomState(c.ctx, c.room)
			closed = st.State == stick.StateClosed
		}
	}
	if err != nil {
		return eventsOut{}, err
	}
	return eventsOut{RoomID: c.room, Events: page.Events, NextCursor: page.Cursor, HasMore: page.HasMore,
		Closed: closed && !page.HasMore && st.LastEventSeq <= page.Cursor}, nil
}

// follow waits up to wait for the room's next events (stick.Service.
// FollowEvents), as a long poll; its end with nothing is an empty page.
func follow(c *call, q eventsQuery, wait time.Duration) (stick.EventPage, error) {
	end, err := c.longPoll()
	if err != nil {
		return stick.EventPage{}, err
	}
	defer end()
	ctx, cancel := context.WithTimeout(c.ctx, wait)
	defer cancel()
	page, err := c.svc.FollowEvents(ctx, c.room, q.After, q.Limit)
	if err != nil && ctx.Err() != nil && c.ctx.Err() == nil {
		return stick.EventPage{Events: []stick.Event{}, Cursor: q.After}, nil
	}
	return page, err
}
