package mcpserver

import (
	"context"
	"encoding/json"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/stick"
)

type listRoomsIn struct {
	ContextPath string `json:"context_path,omitempty" jsonschema:"Default: the working directory."`
}

type joinPathIn struct {
	ContextPath     string `json:"context_path,omitempty" jsonschema:"Your working directory."`
	Name            string `json:"name,omitempty" jsonschema:"Instead of context_path: a room's name (a-z0-9._-)."`
	ForceNew        bool   `json:"force_new,omitempty" jsonschema:"Nest a new room under an existing one."`
	AgentIDOverride string `json:"agent_id_override,omitempty" jsonschema:"Testing only."`
	ReclaimToken    string `json:"reclaim_token,omitempty" jsonschema:"From an earlier join_path, after a restart."`
}

type waitIn struct {
	RoomID    string `json:"room_id"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"The last result's cursor: also return when the log moves past it."`
	MaxWaitMS *int64 `json:"max_wait_ms,omitempty"`
}

func (waitIn) refine(s *jsonschema.Schema, d stick.Policy) {
	between(s, "max_wait_ms", 0, stick.MaxWaitLimit.Milliseconds(),
		"Block at most this long; 0 tries once (default %d). Stay below your client's tool-call timeout.", d.WaitMaxWait.Milliseconds())
}

type leaseIn struct {
	RoomID         string `json:"room_id"`
	LeaseID        string `json:"lease_id" jsonschema:"From your_turn or takeover."`
	ExpectedTurnID int64  `json:"expected_turn_id" jsonschema:"The turn_id of that result."`
}

type releaseIn struct {
	leaseIn
	Handoff stick.Handoff `json:"handoff" jsonschema:"For the next holder."`
}

type passIn struct {
	leaseIn
	ToAgentID string        `json:"to_agent_id" jsonschema:"A member whose status is active or away (see get_room_state)."`
	Handoff   stick.Handoff `json:"handoff" jsonschema:"For the next holder."`
}

type takeoverIn struct {
	RoomID         string `json:"room_id"`
	ExpectedTurnID int64  `json:"expected_turn_id" jsonschema:"The turn_id reported."`
	Reason         string `json:"reason" jsonschema:"Why, e.g. \"owner lease expired\"."`
}

type roomIn struct {
	RoomID string `json:"room_id"`
}

type eventsIn struct {
	RoomID string `json:"room_id"`
	After  int64  `json:"after,omitempty" jsonschema:"Events after this event_seq (a page's cursor)."`
	Limit  int    `json:"limit,omitempty"`
}

func (eventsIn) refine(s *jsonschema.Schema, _ stick.Policy) {
	between(s, "limit", 0, stick.MaxEventLimit, "Page size (default %d).", stick.DefaultEventLimit)
}

type closeIn struct {
	RoomID     string `json:"room_id"`
	Reason     string `json:"reason,omitempty" jsonschema:"Why."`
	Conclusion string `json:"conclusion,omitempty" jsonschema:"The outcome, markdown; it goes into the document."`
}

type policyIn struct {
	RoomID          string `json:"room_id"`
	OwnerLeaseTTLMS *int64 `json:"owner_lease_ttl_ms,omitempty"`
	ClaimTTLMS      *int64 `json:"claim_ttl_ms,omitempty"`
	HeartbeatMS     *int64 `json:"heartbeat_interval_ms,omitempty"`
	PresenceTTLMS   *int64 `json:"presence_ttl_ms,omitempty"`
	WaitMaxWaitMS   *int64 `json:"wait_for_turn_max_wait_ms,omitempty"`
	ProxyGraceMS    *int64 `json:"proxy_grace_ms,omitempty"`
}

func (policyIn) refine(s *jsonschema.Schema, d stick.Policy) {
	ttl := stick.MaxTTL.Milliseconds()
	between(s, "owner_lease_ttl_ms", 0, ttl, "Silence before takeover (default %d).", d.OwnerLeaseTTL.Milliseconds())
	between(s, "claim_ttl_ms", 0, ttl, "Claim time of a reserved recipient (default %d).", d.ClaimTTL.Milliseconds())
	between(s, "heartbeat_interval_ms", 0, ttl, "Heartbeat interval, below the lease (default %d).", d.HeartbeatInterval.Milliseconds())
	between(s, "presence_ttl_ms", 0, ttl, "A member is active this long after a call (default %d).", d.PresenceTTL.Milliseconds())
	between(s, "wait_for_turn_max_wait_ms", 0, stick.MaxWaitLimit.Milliseconds(), "Default max_wait_ms (default %d).", d.WaitMaxWait.Milliseconds())
	between(s, "proxy_grace_ms", 0, ttl, "Grace before a proxied member is gone (default %d).", d.ProxyGrace.Milliseconds())
}

type reorderIn struct {
	RoomID   string   `json:"room_id"`
	AgentIDs []string `json:"agent_ids" jsonschema:"Members in their new order."`
}

type noteIn struct {
	RoomID          string          `json:"room_id"`
	Text            string          `json:"text"`
	MessageType     string          `json:"message_type,omitempty"`
	ReplyTo         int64           `json:"reply_to,omitempty" jsonschema:"The event_seq it answers."`
	Metadata        json.RawMessage `json:"metadata,omitempty"`
	ClientMessageID string          `json:"client_message_id,omitempty" jsonschema:"Idempotency key for retries."`
	To              []string        `json:"to,omitempty" jsonschema:"Agent ids, handles or names; default all."`
	Interrupt       bool            `json:"interrupt,omitempty" jsonschema:"Ends their wait_for_turn."`
	Channel         string          `json:"channel,omitempty" jsonschema:"Default general."`
}

func (noteIn) refine(s *jsonschema.Schema, _ stick.Policy) { noteType(s.Properties["message_type"]) }

// noteType describes a message_type property.
func noteType(p *jsonschema.Schema) {
	p.Pattern = stick.NoteTypePattern
	p.Description = "Default " + string(stick.DefaultNoteType) + "; " + stick.CustomTypePrefix + "<name> for a custom type."
}

type outNote struct {
	Text            string          `json:"text"`
	MessageType     string          `json:"message_type,omitempty"`
	ReplyTo         int64           `json:"reply_to,omitempty" jsonschema:"The event_seq it answers."`
	Metadata        json.RawMessage `json:"metadata,omitempty"`
	ClientMessageID string          `json:"client_message_id,omitempty" jsonschema:"Idempotency key for retries."`
	To              []string        `json:"to,omitempty" jsonschema:"Recipients."`
	Interrupt       bool            `json:"interrupt,omitempty" jsonschema:"Ends their wait."`
	Channel         string          `json:"channel,omitempty" jsonschema:"Default general."`
}

func (n outNote) note() stick.Note {
	meta := n.Metadata
	if string(meta) == "null" {
		meta = nil
	}
	return stick.Note{Text: n.Text, Type: stick.NoteType(n.MessageType), ReplyTo: n.ReplyTo, Metadata: meta, ClientMessageID: n.ClientMessageID,
		To: n.To, Interrupt: n.Interrupt, Channel: n.Channel}
}

type syncIn struct {
	RoomID      string    `json:"room_id"`
	Outbox      []outNote `json:"outbox,omitempty" jsonschema:"Notes to post first."`
	MaxItems    int       `json:"max_items,omitempty"`
	IncludeSelf bool      `json:"include_self,omitempty" jsonschema:"Also your own events."`
	WaitSeconds int       `json:"wait_seconds,omitempty"`
	AutoAdvance *bool     `json:"auto_advance,omitempty" jsonschema:"false: move the cursor only by ack_through."`
	AckThrough  *int64    `json:"ack_through,omitempty" jsonschema:"The last event_seq you processed."`
	CursorReset bool      `json:"cursor_reset,omitempty" jsonschema:"Replay from the start."`
	Channels    []string  `json:"channels,omitempty" jsonschema:"Only notes of these channels."`
}

func (syncIn) refine(s *jsonschema.Schema, _ stick.Policy) {
	between(s, "max_items", 0, stick.MaxEventLimit, "Events at most (default %d).", stick.DefaultSyncItems)
	between(s, "wait_seconds", 0, int64(stick.MaxWaitLimit/time.Second), "Wait this long for a new event (default 0).")
	noteType(s.Properties["outbox"].Items.Properties["message_type"])
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
func (b *toolbox) register() error {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: hint(false)}
	write := &mcp.ToolAnnotations{DestructiveHint: hint(false), OpenWorldHint: hint(false)}
	regs := []func() error{
		func() error {
			return addTool(b, &mcp.Tool{Name: "list_rooms", Title: "List rooms", Annotations: readOnly,
				Description: "List the rooms around a path, with their state and holder."},
				func(ctx context.Context, cl call, in listRoomsIn) (listRoomsOut, string, error) {
					path := in.ContextPath
					if path == "" {
						path = b.fe.listPath()
					}
					rooms, err := cl.svc.ListRooms(ctx, path)
					out := listRoomsOut{ContextPath: path, Rooms: rooms}
					return out, textListRooms(out), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "join_path", Title: "Join the room of a path", Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: hint(false), OpenWorldHint: hint(false)},
				Description: "Join your workspace's room, or a named one (made if none). Keep the reclaim_token: after a restart, join_path with it to be the same member. Next: wait_for_turn."},
				b.joinPath)
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "wait_for_turn", Title: "Wait for your turn", Annotations: write,
				Description: "Claim the stick if free or reserved for you, else block up to max_wait_ms. status: your_turn (read the previous handoff first), not_yet (call again), takeover_available (see takeover_stick) or closed. While you hold the stick and keep making calls, the server keeps your lease alive."},
				b.waitForTurn)
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "heartbeat", Title: "Renew your lease", Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: hint(false), OpenWorldHint: hint(false)},
				Description: "While you hold the stick, renew your lease every heartbeat_interval_ms (other calls renew it too). stale_lease or turn_mismatch: you lost it; stop working, read get_room_state."},
				func(ctx context.Context, cl call, in leaseIn) (heartbeatOut, string, error) {
					res, err := cl.svc.Heartbeat(ctx, cl.caller, in.lease())
					out := heartbeatOut{HeartbeatResult: res, NextStep: "keep working (your calls renew the lease; if you make none, heartbeat again " + until(time.Now(), res.NextHeartbeatAt) + "); release_stick with a handoff when done"}
					return out, textHeartbeat(out), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "release_stick", Title: "Release the stick with a handoff", Annotations: write,
				Description: "End your turn with a truthful handoff; the stick goes to the next member that is active or away. Then wait_for_turn again."},
				func(ctx context.Context, cl call, in releaseIn) (releaseOut, string, error) {
					res, err := cl.svc.Release(ctx, cl.caller, in.lease(), in.Handoff)
					out := releaseOut{ReleaseResult: res, NextStep: nextAfterRelease(res)}
					return out, textRelease(out), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "pass_stick", Title: "Pass the stick to a member", Annotations: write,
				Description: "End your turn like release_stick, but hand the stick to to_agent_id, a member that is active or away."},
				func(ctx context.Context, cl call, in passIn) (releaseOut, string, error) {
					res, err := cl.svc.Pass(ctx, cl.caller, in.lease(), in.ToAgentID, in.Handoff)
					out := releaseOut{ReleaseResult: res, NextStep: nextAfterRelease(res)}
					return out, textRelease(out), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "takeover_stick", Title: "Take over a failed turn", Annotations: write,
				Description: "After takeover_available (a holder or recipient failed): take the stick, with a reason. Then read get_room_events for context."},
				func(ctx context.Context, cl call, in takeoverIn) (takeoverOut, string, error) {
					res, err := cl.svc.Takeover(ctx, cl.caller, in.RoomID, in.ExpectedTurnID, in.Reason)
					out := takeoverOut{TakeoverResult: res, AgentID: cl.caller.AgentID, now: time.Now(),
						NextStep: "read get_room_events (from the recent handoff) to recover context, then work; release_stick with a handoff when done"}
					return out, textTakeover(out), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "get_room_state", Title: "Read a room's state", Annotations: readOnly,
				Description: "Read the room: holder, reserved recipient, turn, state, members and the pending handoff."},
				func(ctx context.Context, cl call, in roomIn) (stick.RoomStatus, string, error) {
					res, err := cl.svc.RoomState(ctx, in.RoomID)
					return res, textState(res), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "get_room_events", Title: "Read a room's event log", Annotations: readOnly,
				Description: "Read the room's log (claims, handoffs, takeovers, notes, ...), oldest first, after a cursor."},
				func(ctx context.Context, cl call, in eventsIn) (stick.EventPage, string, error) {
					res, err := cl.svc.RoomEvents(ctx, in.RoomID, in.After, in.Limit)
					return res, textEvents(res), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "leave_path", Title: "Leave a room", Annotations: write,
				Description: "Leave the room's member sequence. Release or pass the stick first."},
				func(ctx context.Context, cl call, in roomIn) (leaveOut, string, error) {
					err := cl.svc.Leave(ctx, cl.caller, in.RoomID)
					return leaveOut{RoomID: in.RoomID, AgentID: cl.caller.AgentID, Left: err == nil},
						"left room_id " + in.RoomID + " as " + cl.caller.AgentID + "; you are out of its sequence.\nnext: join_path again to rejoin (at the end of the sequence)", err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "close_room", Title: "Close a room", Annotations: &mcp.ToolAnnotations{DestructiveHint: hint(true), OpenWorldHint: hint(false)},
				Description: "Close the room for good when its work is done; its log and document stay readable."},
				func(ctx context.Context, cl call, in closeIn) (stick.CloseResult, string, error) {
					res, err := cl.svc.Close(ctx, cl.caller, in.RoomID, in.Reason, in.Conclusion)
					return res, textClose(res), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "set_room_policy", Title: "Change a room's timeouts", Annotations: write,
				Description: "Change the room's timeouts in ms (0 resets one). Only when asked. While the stick is held or reserved, only that member may; running deadlines never shorten."},
				func(ctx context.Context, cl call, in policyIn) (policyOut, string, error) {
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
						{"proxy_grace_ms", in.ProxyGraceMS, &u.ProxyGrace},
					} {
						d, err := ms(f.name, f.src)
						if err != nil {
							return policyOut{}, "", err
						}
						*f.dst = d
					}
					p, err := cl.svc.SetPolicy(ctx, cl.caller, in.RoomID, u)
					out := policyOut{RoomID: in.RoomID, Policy: p}
					return out, "room " + in.RoomID + " policy: " + textPolicy(p), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "reorder_members", Title: "Reorder the member sequence", Annotations: write,
				Description: "Set the order release_stick follows: these members first, then the others. Only when asked."},
				func(ctx context.Context, cl call, in reorderIn) (membersOut, string, error) {
					ms, err := cl.svc.ReorderMembers(ctx, cl.caller, in.RoomID, in.AgentIDs)
					out := membersOut{RoomID: in.RoomID, Members: ms}
					return out, textMembers(in.RoomID, ms), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "sync", Title: "Catch up with the room's log, and post", Annotations: write,
				Description: "Post the outbox, then get events not yet given to you, oldest first; repeat until has_more is false. Can wait for a new event."},
				func(ctx context.Context, cl call, in syncIn) (stick.SyncResult, string, error) {
					wait, err := stick.WaitSeconds(int64(in.WaitSeconds))
					if err != nil {
						return stick.SyncResult{}, "", err
					}
					req := stick.SyncRequest{MaxItems: in.MaxItems, IncludeSelf: in.IncludeSelf, Wait: wait,
						ManualAck: in.AutoAdvance != nil && !*in.AutoAdvance, AckThrough: in.AckThrough, CursorReset: in.CursorReset,
						Channels: in.Channels}
					for _, n := range in.Outbox {
						req.Outbox = append(req.Outbox, n.note())
					}
					done := func() {}
					if wait > 0 {
						done = cl.wait()
					}
					res, err := cl.svc.Sync(ctx, cl.caller, in.RoomID, req)
					done()
					return res, textSync(res), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "append_note", Title: "Post a note to the room", Annotations: write,
				Description: "Post a note (progress, warning, question, answer, decision), with or without the stick."},
				func(ctx context.Context, cl call, in noteIn) (noteOut, string, error) {
					res, err := cl.svc.Post(ctx, cl.caller, in.RoomID, outNote{Text: in.Text, MessageType: in.MessageType, ReplyTo: in.ReplyTo,
						Metadata: in.Metadata, ClientMessageID: in.ClientMessageID, To: in.To, Interrupt: in.Interrupt, Channel: in.Channel}.note())
					text := string(res.Event.MessageType) + " posted as event " + itoa(res.Event.Seq) + " in room " + in.RoomID + textAddressing(res.Event)
					if res.Duplicate {
						text = "duplicate: client_message_id " + in.ClientMessageID + " was already posted as event " +
							itoa(res.Event.Seq) + " in room " + in.RoomID + "; nothing new was posted"
					}
					return noteOut{Event: res.Event, Duplicate: res.Duplicate}, text, err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "read_room_doc", Title: "Read the room's document", Annotations: readOnly,
				Description: "Read the room's markdown document and its version."},
				readRoomDoc)
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "update_room_doc", Title: "Rewrite the room's document", Annotations: write,
				Description: "Replace the whole document if still at expected_version; on version_conflict read, merge, retry. append_room_doc adds without conflicts."},
				updateRoomDoc)
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "append_room_doc", Title: "Add to the room's document", Annotations: write,
				Description: "Add markdown to the end of the document or of a section; never conflicts."},
				appendRoomDoc)
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "room_doc_history", Title: "List the document's versions", Annotations: readOnly,
				Description: "List the document's versions, oldest first."},
				roomDocHistory)
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "search_events", Title: "Search the rooms' logs and documents", Annotations: readOnly,
				Description: "Full-text search, best first, over notes, handoffs and documents of all rooms (or room_id's), to find earlier work."},
				searchEvents)
		},
	}
	regs = append(regs, b.messagingTools(readOnly, write)...)
	// Adding the tools (the SDK decodes every schema, and a server with
	// other than the default policy reflects them from Go types) is most of
	// a server's start-up: it runs on every core, each tool in one
	// goroutine. The SDK lists tools by name, whatever the order they were
	// added in.
	errs := make([]error, len(regs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(regs)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(regs); i = int(next.Add(1)) - 1 {
				errs[i] = regs[i]()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (l leaseIn) lease() stick.Lease {
	return stick.Lease{RoomID: l.RoomID, LeaseID: l.LeaseID, TurnID: l.ExpectedTurnID}
}

// joinPath joins a room as the frontend allows (see frontend.join).
func (b *toolbox) joinPath(ctx context.Context, cl call, in joinPathIn) (joinOut, string, error) {
	res, err := b.fe.join(ctx, cl, in)
	if err != nil {
		return joinOut{}, "", err
	}
	out := joinOut{JoinResult: res, NextStep: nextAfterJoin(res)}
	return out, textJoin(out), nil
}
