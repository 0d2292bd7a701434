package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

type handleIn struct {
	RoomID string `json:"room_id"`
	Handle string `json:"handle" jsonschema:"a-z, 0-9, -; \"\" drops it."`
}

type channelsOut struct {
	RoomID   string              `json:"room_id"`
	Channels []stick.ChannelInfo `json:"channels"`
}

type historyIn struct {
	RoomID       string   `json:"room_id"`
	Channels     []string `json:"channels,omitempty" jsonschema:"Only notes of these."`
	From         []string `json:"from,omitempty" jsonschema:"Only these agent ids."`
	Types        []string `json:"types,omitempty" jsonschema:"Event types: note, pass, ..."`
	MessageTypes []string `json:"message_types,omitempty" jsonschema:"Note types: question, ..."`
	Since        string   `json:"since,omitempty" jsonschema:"RFC 3339, or a duration ago (2h)."`
	Until        string   `json:"until,omitempty" jsonschema:"RFC 3339, or a duration ago."`
	Before       int64    `json:"before,omitempty" jsonschema:"Older than this event_seq."`
	Limit        int      `json:"limit,omitempty"`
}

func (historyIn) refine(s *jsonschema.Schema, _ stick.Policy) {
	between(s, "limit", 0, stick.MaxEventLimit, "At most (default %d).", stick.DefaultEventLimit)
}

type historyOut struct {
	RoomID string        `json:"room_id"`
	Events []stick.Event `json:"events"`
}

type standbyIn struct {
	RoomID string `json:"room_id"`
	Off    bool   `json:"off,omitempty" jsonschema:"Take turns again."`
}

type memberOut struct {
	RoomID string             `json:"room_id"`
	Member stick.MemberStatus `json:"member"`
}

type removeIn struct {
	RoomID  string `json:"room_id"`
	AgentID string `json:"agent_id" jsonschema:"The member."`
	Reason  string `json:"reason,omitempty" jsonschema:"Why."`
}

// messagingTools are the tools of channels, handles, standby and removal.
func (b *toolbox) messagingTools(readOnly, write *mcp.ToolAnnotations) []func() error {
	return []func() error{
		func() error {
			return addTool(b, &mcp.Tool{Name: "list_channels", Title: "List the room's channels", Annotations: readOnly,
				Description: "The room's channels (lanes for notes), with counts and last activity."},
				func(ctx context.Context, cl call, in roomIn) (channelsOut, string, error) {
					chs, err := cl.svc.ListChannels(ctx, in.RoomID)
					return channelsOut{RoomID: in.RoomID, Channels: chs}, textChannels(in.RoomID, chs), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "read_history", Title: "Read the room's history, filtered", Annotations: readOnly,
				Description: "Newest events matching every filter given, oldest first."},
				func(ctx context.Context, cl call, in historyIn) (historyOut, string, error) {
					q, err := historyQuery(in)
					if err != nil {
						return historyOut{}, "", err
					}
					evs, err := cl.svc.History(ctx, q)
					if evs == nil {
						evs = []stick.Event{}
					}
					text := fmt.Sprintf("%d event(s) of room_id %s", len(evs), in.RoomID)
					if len(evs) == 0 {
						text = "no events of room_id " + in.RoomID + " match"
					}
					return historyOut{RoomID: in.RoomID, Events: evs}, text + render.PlainEvents(evs), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "set_handle", Title: "Choose your handle in the room", Annotations: write,
				Description: "Choose a handle, unique in the room, usable in append_note to."},
				func(ctx context.Context, cl call, in handleIn) (stick.Identity, string, error) {
					id, err := cl.svc.SetHandle(ctx, cl.caller, in.RoomID, in.Handle)
					return id, textIdentity(id), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "get_my_handle", Title: "Read your identity in the room", Annotations: readOnly,
				Description: "Read your handle, agent_id and display name in the room."},
				func(ctx context.Context, cl call, in roomIn) (stick.Identity, string, error) {
					id, err := cl.svc.WhoAmI(ctx, cl.caller, in.RoomID)
					return id, textIdentity(id), err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "standby", Title: "Stand by in the room", Annotations: write,
				Description: "Stay a member without taking turns; you are woken when addressed or handed the stick."},
				func(ctx context.Context, cl call, in standbyIn) (memberOut, string, error) {
					m, err := cl.svc.SetStandby(ctx, cl.caller, in.RoomID, !in.Off)
					text := "on standby in room_id " + in.RoomID + ": stop here; you will be woken when addressed or handed the stick"
					if in.Off {
						text = "off standby in room_id " + in.RoomID + ": call wait_for_turn to take turns"
					} else if m.Wake == nil {
						text += " (this session cannot be woken by stick: check with sync now and then)"
					}
					return memberOut{RoomID: in.RoomID, Member: m}, text, err
				})
		},
		func() error {
			return addTool(b, &mcp.Tool{Name: "remove_member", Title: "Remove a member whose process is gone", Annotations: &mcp.ToolAnnotations{DestructiveHint: hint(true), OpenWorldHint: hint(false)},
				Description: "Remove a member whose process is gone (logged)."},
				func(ctx context.Context, cl call, in removeIn) (membersOut, string, error) {
					st, err := cl.svc.RemoveMember(ctx, cl.caller, in.RoomID, in.AgentID, in.Reason)
					return membersOut{RoomID: in.RoomID, Members: st.Members}, "removed " + in.AgentID + " from room_id " + in.RoomID + "\n" + textMembers("", st.Members), err
				})
		},
	}
}

// historyQuery turns a read_history call into a query; since and until
// are RFC 3339 times or spans back from now (see stick.HistoryQuery.SetSpan).
func historyQuery(in historyIn) (stick.HistoryQuery, error) {
	q := stick.HistoryQuery{RoomID: in.RoomID, Channels: in.Channels, From: in.From, Before: in.Before, Limit: in.Limit}
	for _, t := range in.Types {
		q.Types = append(q.Types, stick.EventType(t))
	}
	for _, t := range in.MessageTypes {
		q.NoteTypes = append(q.NoteTypes, stick.NoteType(t))
	}
	err := q.SetSpan(in.Since, in.Until)
	return q, err
}

func textIdentity(id stick.Identity) string {
	h := "no handle (set_handle chooses one)"
	if id.Handle != "" {
		h = "handle @" + id.Handle
	}
	name := ""
	if id.DisplayName != "" {
		name = ", display name " + stick.Quote(id.DisplayName)
	}
	return fmt.Sprintf("you are agent_id %s in room_id %s: %s%s", id.AgentID, id.RoomID, h, name)
}

func textChannels(room string, chs []stick.ChannelInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "channels of room_id %s:", room)
	for _, c := range chs {
		fmt.Fprintf(&b, "\n- %s: %s (%s", c.Name, c.Description, render.Count(c.Notes, "note"))
		if c.LastActivity != nil {
			fmt.Fprintf(&b, ", last %s", render.PlainTime(*c.LastActivity))
		}
		b.WriteString(")")
	}
	return b.String()
}
