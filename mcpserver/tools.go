package mcpserver

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/stick"
)

type listRoomsIn struct {
	ContextPath string `json:"context_path,omitempty" jsonschema:"A file or directory in the workspace; default: the server's working directory."`
}

type joinPathIn struct {
	ContextPath     string `json:"context_path" jsonschema:"A file or directory in the workspace, usually your working directory. The room may resolve to the workspace root."`
	ForceNew        bool   `json:"force_new,omitempty" jsonschema:"Create a nested room at context_path even though an ancestor room exists. Default false."`
	AgentIDOverride string `json:"agent_id_override,omitempty" jsonschema:"Tests and debugging only: act as this agent id in the room joined; later join_path calls on this connection keep it, checked in the room they join. An agent id that is already a member of the room also needs its reclaim_token."`
	ReclaimToken    string `json:"reclaim_token,omitempty" jsonschema:"The reclaim_token an earlier join_path gave you, after a restart: you become that member again (same agent_id, place in the sequence and sync cursor) in the room the token belongs to; later join_path calls on this connection keep that agent_id, checked in the room they join."`
}

type waitIn struct {
	RoomID    string `json:"room_id" jsonschema:"The room_id from join_path."`
	Cursor    string `json:"cursor,omitempty" jsonschema:"Optional cursor from a previous wait_for_turn: also return as soon as the room's log moves past it."`
	MaxWaitMS *int64 `json:"max_wait_ms,omitempty" jsonschema:"How long to block, in milliseconds; 0 makes one attempt without blocking. Default: the room policy (30000). Stay below your client's tool-call timeout (often 60000); at most 600000."`
}

type leaseIn struct {
	RoomID         string `json:"room_id" jsonschema:"The room_id of your your_turn result."`
	LeaseID        string `json:"lease_id" jsonschema:"The lease_id of your your_turn or takeover result."`
	ExpectedTurnID int64  `json:"expected_turn_id" jsonschema:"The turn_id of your your_turn or takeover result."`
}

type releaseIn struct {
	leaseIn
	Handoff stick.Handoff `json:"handoff" jsonschema:"What you did, what comes next and where to look. status and next_action are required."`
}

type passIn struct {
	leaseIn
	ToAgentID string        `json:"to_agent_id" jsonschema:"The agent_id of an active member to hand the stick to (see get_room_state)."`
	Handoff   stick.Handoff `json:"handoff" jsonschema:"What you did, what comes next and where to look. status and next_action are required."`
}

type takeoverIn struct {
	RoomID         string `json:"room_id" jsonschema:"The room to take over."`
	ExpectedTurnID int64  `json:"expected_turn_id" jsonschema:"The turn_id reported by takeover_available or get_room_state."`
	Reason         string `json:"reason" jsonschema:"Why you take over, e.g. \"owner lease expired\". Required."`
}

type roomIn struct {
	RoomID string `json:"room_id" jsonschema:"The room_id from join_path or list_rooms."`
}

type eventsIn struct {
	RoomID string `json:"room_id" jsonschema:"The room_id from join_path or list_rooms."`
	After  int64  `json:"after,omitempty" jsonschema:"Return events after this event_seq (the cursor of a previous page); default 0, the beginning."`
	Limit  int    `json:"limit,omitempty" jsonschema:"At most this many events (default 50, at most 1000)."`
}

type closeIn struct {
	RoomID     string `json:"room_id" jsonschema:"The room to close for good."`
	Reason     string `json:"reason,omitempty" jsonschema:"Why the room closes."`
	Conclusion string `json:"conclusion,omitempty" jsonschema:"Optional conclusion text (markdown) recorded with the close."`
}

type policyIn struct {
	RoomID          string `json:"room_id" jsonschema:"The room whose timeouts to change."`
	OwnerLeaseTTLMS *int64 `json:"owner_lease_ttl_ms,omitempty" jsonschema:"How long a holder may stay silent before takeover opens, in ms; 0 resets to the default (2700000)."`
	ClaimTTLMS      *int64 `json:"claim_ttl_ms,omitempty" jsonschema:"How long a reserved recipient has to claim, in ms; 0 resets to the default (1200000)."`
	HeartbeatMS     *int64 `json:"heartbeat_interval_ms,omitempty" jsonschema:"How often the holder heartbeats, in ms; must be shorter than the lease; 0 resets to the default (300000)."`
	PresenceTTLMS   *int64 `json:"presence_ttl_ms,omitempty" jsonschema:"How long a member counts as active after its last call, in ms; 0 resets to the default (14400000)."`
	WaitMaxWaitMS   *int64 `json:"wait_for_turn_max_wait_ms,omitempty" jsonschema:"Default block time of wait_for_turn, in ms, at most 600000; 0 resets to the default (30000)."`
}

type reorderIn struct {
	RoomID   string   `json:"room_id" jsonschema:"The room whose member sequence to change."`
	AgentIDs []string `json:"agent_ids" jsonschema:"Members in the order they should follow each other; unlisted members keep their order after these."`
}

type noteIn struct {
	RoomID          string          `json:"room_id" jsonschema:"The room to post in."`
	Text            string          `json:"text" jsonschema:"The note. Any member may post; it never changes who holds the stick."`
	MessageType     string          `json:"message_type,omitempty" jsonschema:"Optional kind of note, free text: note (the default), question, answer or decision."`
	ReplyTo         int64           `json:"reply_to,omitempty" jsonschema:"Optional event_seq of an event of this room that this note answers."`
	Metadata        json.RawMessage `json:"metadata,omitempty" jsonschema:"Optional JSON object for tools, stored with the note as its data."`
	ClientMessageID string          `json:"client_message_id,omitempty" jsonschema:"Optional idempotency key: a retry with the same key returns the first note, flagged duplicate, instead of posting again."`
}

type outNote struct {
	Text            string          `json:"text" jsonschema:"The note."`
	MessageType     string          `json:"message_type,omitempty" jsonschema:"Optional kind of note, free text: note (the default), question, answer or decision."`
	ReplyTo         int64           `json:"reply_to,omitempty" jsonschema:"Optional event_seq of an event of this room that this note answers."`
	Metadata        json.RawMessage `json:"metadata,omitempty" jsonschema:"Optional JSON object for tools, stored with the note as its data."`
	ClientMessageID string          `json:"client_message_id,omitempty" jsonschema:"Optional idempotency key: a retry with the same key returns the first note, flagged duplicate."`
}

func (n outNote) note() stick.Note {
	meta := n.Metadata
	if string(meta) == "null" {
		meta = nil
	}
	return stick.Note{Text: n.Text, Type: stick.NoteType(n.MessageType), ReplyTo: n.ReplyTo, Metadata: meta, ClientMessageID: n.ClientMessageID}
}

type syncIn struct {
	RoomID      string    `json:"room_id" jsonschema:"The room to sync with."`
	Outbox      []outNote `json:"outbox,omitempty" jsonschema:"Optional notes to post first, in order."`
	MaxItems    int       `json:"max_items,omitempty" jsonschema:"At most this many events back; default 50, at most 1000."`
	IncludeSelf bool      `json:"include_self,omitempty" jsonschema:"Also return your own events. Default false."`
	WaitSeconds int       `json:"wait_seconds,omitempty" jsonschema:"When nothing is new, wait up to this many seconds for the next event; default 0 (return at once), at most 600. Stay below your client's tool-call timeout."`
	AutoAdvance *bool     `json:"auto_advance,omitempty" jsonschema:"Default true: the server-side cursor moves past what is returned. With false it moves only by ack_through."`
	AckThrough  *int64    `json:"ack_through,omitempty" jsonschema:"With auto_advance false: the event_seq of the last event you processed."`
	CursorReset bool      `json:"cursor_reset,omitempty" jsonschema:"Start again from the beginning of the log (replay everything). Default false."`
}

// maxMS is the largest millisecond value a time.Duration holds.
const maxMS = math.MaxInt64 / int64(time.Millisecond)

// ms converts an optional millisecond argument, rejecting values too large
// to represent (negative ones are left to the service, which explains them).
func ms(field string, p *int64) (*time.Duration, error) {
	if p == nil {
		return nil, nil
	}
	if *p > maxMS || *p < -maxMS {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "%s is out of range: %d", field, *p).With("field", field).
			WithHint("give a duration in milliseconds, for example 30000 for 30 seconds")
	}
	d := time.Duration(*p) * time.Millisecond
	return &d, nil
}

func hint(b bool) *bool { return &b }

// register adds every tool of the protocol.
func (s *Server) register() error {
	svc := s.cfg.Service
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: hint(false)}
	write := &mcp.ToolAnnotations{DestructiveHint: hint(false), OpenWorldHint: hint(false)}
	regs := []func() error{
		func() error {
			return addTool(s, &mcp.Tool{Name: "list_rooms", Title: "List rooms", Annotations: readOnly,
				Description: "List the rooms of the workspace around a path (the ancestor chain up to the workspace root and rooms nested below it), with their state and holder. Call it before join_path to see what is going on."},
				func(ctx context.Context, _ stick.Caller, _ *mcp.CallToolRequest, in listRoomsIn) (listRoomsOut, string, error) {
					path := in.ContextPath
					if path == "" {
						path, _ = os.Getwd()
					}
					rooms, err := svc.ListRooms(ctx, path)
					out := listRoomsOut{ContextPath: path, Rooms: rooms}
					return out, textListRooms(out), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "join_path", Title: "Join the room of a path", Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: hint(false), OpenWorldHint: hint(false)},
				Description: "Join the coordination room for a workspace path (created at the workspace root if none exists) and learn your agent_id, the room_id, the room's policy (heartbeat_interval_ms), the handoff template and your reclaim_token. Keep the reclaim_token: after a restart (a new session or server process), join_path with it to be the same member again, with your place in the sequence and your sync cursor, then sync to catch up. Next: wait_for_turn."},
				s.joinPath)
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "wait_for_turn", Title: "Wait for your turn", Annotations: write,
				Description: "Claim the stick if it is free or reserved for you, otherwise block until it is (up to max_wait_ms). Returns your_turn (with lease_id, turn_id and the previous holder's handoff: read it before working), not_yet (call again), takeover_available (the holder or recipient failed: consider takeover_stick) or closed. Never takes over by itself."},
				s.waitForTurn)
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "heartbeat", Title: "Renew your lease", Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: hint(false), OpenWorldHint: hint(false)},
				Description: "While you hold the stick, renew your lease about every heartbeat_interval_ms so nobody takes over. stale_lease or turn_mismatch means you no longer hold it: stop working and read get_room_state."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in leaseIn) (heartbeatOut, string, error) {
					res, err := svc.Heartbeat(ctx, c, in.lease())
					out := heartbeatOut{HeartbeatResult: res, NextStep: "keep working; heartbeat again " + until(time.Now(), res.NextHeartbeatAt) + "; release_stick with a handoff when done"}
					return out, textHeartbeat(out), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "release_stick", Title: "Release the stick with a handoff", Annotations: write,
				Description: "End your turn: hand the stick to the next active member in sequence with a truthful handoff (status, next_action, artifacts with paths and line ranges, open_questions, do_not). Then call wait_for_turn again."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in releaseIn) (releaseOut, string, error) {
					res, err := svc.Release(ctx, c, in.lease(), in.Handoff)
					out := releaseOut{ReleaseResult: res, NextStep: nextAfterRelease(res)}
					return out, textRelease(out), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "pass_stick", Title: "Pass the stick to a member", Annotations: write,
				Description: "End your turn and hand the stick to a specific active member (skipping the sequence), with the same handoff as release_stick. The sequence resumes after that member."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in passIn) (releaseOut, string, error) {
					res, err := svc.Pass(ctx, c, in.lease(), in.ToAgentID, in.Handoff)
					out := releaseOut{ReleaseResult: res, NextStep: nextAfterRelease(res)}
					return out, textRelease(out), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "takeover_stick", Title: "Take over a failed turn", Annotations: write,
				Description: "Take the stick when wait_for_turn or get_room_state reported takeover_available (a holder or recipient timed out or its process died). Give a reason. Afterwards read get_room_events to recover the context the failed holder had."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in takeoverIn) (takeoverOut, string, error) {
					res, err := svc.Takeover(ctx, c, in.RoomID, in.ExpectedTurnID, in.Reason)
					out := takeoverOut{TakeoverResult: res, AgentID: c.AgentID, now: time.Now(),
						NextStep: "read get_room_events (from the recent handoff) to recover context, then work; heartbeat and release_stick as usual"}
					return out, textTakeover(out), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "get_room_state", Title: "Read a room's state", Annotations: readOnly,
				Description: "Read who holds the stick, for whom it is reserved, the turn, the derived state (idle, owned, reserved, stale_owner, owner_gone, recipient_gone, dormant, closed), the members with their activity, and the pending handoff."},
				func(ctx context.Context, _ stick.Caller, _ *mcp.CallToolRequest, in roomIn) (stick.RoomStatus, string, error) {
					res, err := svc.RoomState(ctx, in.RoomID)
					return res, textState(res), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "get_room_events", Title: "Read a room's event log", Annotations: readOnly,
				Description: "Read the room's append-only log (joins, claims, releases and passes with their handoffs, takeovers, notes, ...), oldest first, after a cursor. Use it to recover context after a takeover."},
				func(ctx context.Context, _ stick.Caller, _ *mcp.CallToolRequest, in eventsIn) (stick.EventPage, string, error) {
					res, err := svc.RoomEvents(ctx, in.RoomID, in.After, in.Limit)
					return res, textEvents(res), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "leave_path", Title: "Leave a room", Annotations: write,
				Description: "Leave the room's member sequence. Release or pass the stick first if you hold it."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in roomIn) (leaveOut, string, error) {
					err := svc.Leave(ctx, c, in.RoomID)
					return leaveOut{RoomID: in.RoomID, AgentID: c.AgentID, Left: err == nil},
						"left room_id " + in.RoomID + " as " + c.AgentID + "; you are out of its sequence.\nnext: join_path again to rejoin (at the end of the sequence)", err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "close_room", Title: "Close a room", Annotations: &mcp.ToolAnnotations{DestructiveHint: hint(true), OpenWorldHint: hint(false)},
				Description: "Close the room for good: no more turns, waiters get closed, the log and the document stay readable. Only when the work of the room is finished. A conclusion is also written into the room document's Conclusion section. Closing again revises the conclusion."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in closeIn) (stick.CloseResult, string, error) {
					res, err := svc.Close(ctx, c, in.RoomID, in.Reason, in.Conclusion)
					return res, textClose(res), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "set_room_policy", Title: "Change a room's timeouts", Annotations: write,
				Description: "Change the room's timeouts (only the fields you give) and return the effective policy. Rejects nonsense such as a heartbeat not shorter than the lease."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in policyIn) (policyOut, string, error) {
					var u stick.PolicyUpdate
					for _, f := range []struct {
						name string
						src  *int64
						dst  **time.Duration
					}{
						{"owner_lease_ttl_ms", in.OwnerLeaseTTLMS, &u.OwnerLeaseTTL},
						{"claim_ttl_ms", in.ClaimTTLMS, &u.ClaimTTL},
						{"heartbeat_interval_ms", in.HeartbeatMS, &u.HeartbeatInterval},
						{"presence_ttl_ms", in.PresenceTTLMS, &u.PresenceTTL},
						{"wait_for_turn_max_wait_ms", in.WaitMaxWaitMS, &u.WaitMaxWait},
					} {
						d, err := ms(f.name, f.src)
						if err != nil {
							return policyOut{}, "", err
						}
						*f.dst = d
					}
					p, err := svc.SetPolicy(ctx, c, in.RoomID, u)
					out := policyOut{RoomID: in.RoomID, Policy: p}
					return out, "room " + in.RoomID + " policy: " + textPolicy(p), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "reorder_members", Title: "Reorder the member sequence", Annotations: write,
				Description: "Change the order in which release_stick hands the stick on: the listed members first, in order, then the others."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in reorderIn) (membersOut, string, error) {
					ms, err := svc.ReorderMembers(ctx, c, in.RoomID, in.AgentIDs)
					out := membersOut{RoomID: in.RoomID, Members: ms}
					return out, textMembers(in.RoomID, ms), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "sync", Title: "Catch up with the room's log, and post", Annotations: write,
				Description: "Post the outbox's notes, then get every event of the room you have not been given yet (claims, handoffs, takeovers, notes, ...), oldest first, from a cursor the server keeps for you: after a restart or a long task, sync until has_more is false to catch up. Optionally wait for the next event. Refreshes your presence."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in syncIn) (stick.SyncResult, string, error) {
					if in.WaitSeconds < 0 || in.WaitSeconds > int(stick.MaxWaitLimit/time.Second) {
						return stick.SyncResult{}, "", stick.Errorf(stick.CodeInvalidArgument, "wait_seconds must be between 0 and %d seconds (%v), got %d seconds",
							int(stick.MaxWaitLimit/time.Second), stick.MaxWaitLimit, in.WaitSeconds).With("field", "wait_seconds")
					}
					req := stick.SyncRequest{MaxItems: in.MaxItems, IncludeSelf: in.IncludeSelf, Wait: time.Duration(in.WaitSeconds) * time.Second,
						ManualAck: in.AutoAdvance != nil && !*in.AutoAdvance, AckThrough: in.AckThrough, CursorReset: in.CursorReset}
					for _, n := range in.Outbox {
						req.Outbox = append(req.Outbox, n.note())
					}
					res, err := svc.Sync(ctx, c, in.RoomID, req)
					return res, textSync(res), err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "append_note", Title: "Post a note to the room", Annotations: write,
				Description: "Post a note to the room's log without holding the stick (progress, a warning, a question, an answer, a decision). It never changes who holds the stick. Give client_message_id to make a retried send safe."},
				func(ctx context.Context, c stick.Caller, _ *mcp.CallToolRequest, in noteIn) (noteOut, string, error) {
					res, err := svc.Post(ctx, c, in.RoomID, outNote{Text: in.Text, MessageType: in.MessageType, ReplyTo: in.ReplyTo,
						Metadata: in.Metadata, ClientMessageID: in.ClientMessageID}.note())
					text := string(res.Event.MessageType) + " posted as event " + itoa(res.Event.Seq) + " in room " + in.RoomID
					if res.Duplicate {
						text = "duplicate: client_message_id " + in.ClientMessageID + " was already posted as event " +
							itoa(res.Event.Seq) + " in room " + in.RoomID + "; nothing new was posted"
					}
					return noteOut{Event: res.Event, Duplicate: res.Duplicate}, text, err
				})
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "read_room_doc", Title: "Read the room's document", Annotations: readOnly,
				Description: "Read the room's shared markdown document, where members keep what outlives a turn (plan, decisions, findings, the conclusion): its content and version (0 while nobody has written it), who wrote it, when and how. No membership needed; closed rooms stay readable. To catch up after a restart or a long task: sync until has_more is false, then read_room_doc. Before rewriting the document, read it and pass its version to update_room_doc. Give version to read an older one (see room_doc_history)."},
				s.readRoomDoc)
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "update_room_doc", Title: "Rewrite the room's document", Annotations: write,
				Description: "Replace the room's whole document with content (markdown), if it is still at expected_version: the version you read with read_room_doc just before (0 for a document never written). Any member may write, with or without the stick. On version_conflict someone wrote in between (details.current_version): read_room_doc again, merge your change into the new content, and retry with the new version. To add a decision or finding, append_room_doc is simpler and never conflicts."},
				s.updateRoomDoc)
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "append_room_doc", Title: "Add to the room's document", Annotations: write,
				Description: "Add text (markdown) to the end of the room's document, or to the end of a section (\"## section\", made at the end if missing), without reading it first: concurrent appends never conflict. Record a decision with section \"Decisions\"; any member may append, with or without the stick."},
				s.appendRoomDoc)
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "room_doc_history", Title: "List the document's versions", Annotations: readOnly,
				Description: "List every version of the room's document, oldest first: version, author, op (update, append or conclusion), size, time and the event_seq that recorded it. Read one with read_room_doc(room_id, version)."},
				s.roomDocHistory)
		},
		func() error {
			return addTool(s, &mcp.Tool{Name: "search_events", Title: "Search the rooms' logs and documents", Annotations: readOnly,
				Description: "Full-text search, best match first, over notes, handoffs (status, next_action, open questions), close reasons and conclusions, and the paragraphs of the rooms' current documents, in every room unless room_id is given. No membership needed. Use it to find an earlier decision, finding or handoff (who did what, and where) before asking or redoing work. Snippets mark matches with **."},
				s.searchEvents)
		},
	}
	for _, r := range regs {
		if err := r(); err != nil {
			return err
		}
	}
	return nil
}

func (l leaseIn) lease() stick.Lease {
	return stick.Lease{RoomID: l.RoomID, LeaseID: l.LeaseID, TurnID: l.ExpectedTurnID}
}

// joinPath joins the room of a path as the connection's derived identity,
// or as the member an agent_id_override or reclaim_token names; the
// identity it joins as is the connection's in that room only. A join with
// neither passes on the name of the connection's last override or reclaim
// as its agent_id_override, so it stays flagged as overridden and package
// stick checks that name in the room it lands in. Should the service
// refuse a name in a room (another process joined as it since), the
// reclaim token this connection holds for that name in that room proves it.
func (s *Server) joinPath(ctx context.Context, c stick.Caller, req *mcp.CallToolRequest, in joinPathIn) (joinOut, string, error) {
	conn := s.conn(req)
	jr := stick.JoinRequest{Path: in.ContextPath, ForceNew: in.ForceNew, AgentIDOverride: in.AgentIDOverride, ReclaimToken: in.ReclaimToken}
	if jr.AgentIDOverride == "" && jr.ReclaimToken == "" {
		jr.AgentIDOverride = conn.overridden()
	}
	res, err := s.cfg.Service.JoinPath(ctx, c, jr)
	if e := stick.AsError(err); e != nil && e.Code == stick.CodeAgentIDInUse && jr.ReclaimToken == "" {
		room, _ := e.Details["room_id"].(string)
		if jr.ReclaimToken = conn.token(room, jr.AgentIDOverride); jr.ReclaimToken != "" {
			res, err = s.cfg.Service.JoinPath(ctx, c, jr)
		}
	}
	if err != nil {
		return joinOut{}, "", err
	}
	before := conn.joined(res, jr.AgentIDOverride != "")
	if res.Reclaimed && before.agentID == c.AgentID && before.agentID != res.AgentID {
		// This connection had joined the room under its derived identity
		// before it reclaimed its old one: that member would get turns
		// nobody takes. It leaves, unless it holds the stick.
		if err := s.cfg.Service.Leave(ctx, c, res.RoomID); err == nil {
			if st, err := s.cfg.Service.RoomState(ctx, res.RoomID); err == nil {
				res.Room = st
			}
		}
	}
	out := joinOut{JoinResult: res, NextStep: nextAfterJoin(res)}
	return out, textJoin(out), nil
}
