package server

import (
	"strings"

	"github.com/stickhq/stick/stick"
)

// Channels, filtered history, handles, standby and removing a member.

type channelsOut struct {
	RoomID   string              `json:"room_id"`
	Channels []stick.ChannelInfo `json:"channels"`
}

// listChannels lists the room's channels.
func listChannels(c *call, _ struct{}) (channelsOut, error) {
	chs, err := c.svc.ListChannels(c.ctx, c.room)
	return channelsOut{RoomID: c.room, Channels: chs}, err
}

type historyQuery struct {
	Channel     string `query:"channel" jsonschema:"Only notes of these channels (comma-separated)."`
	From        string `query:"from" jsonschema:"Only events of these agent ids (comma-separated)."`
	Type        string `query:"type" jsonschema:"Only events of these types: note, release, pass, claim, ... (comma-separated)."`
	MessageType string `query:"message_type" jsonschema:"Only notes of these kinds: question, decision, x-... (comma-separated)."`
	Since       string `query:"since" jsonschema:"Only events at or after this time (RFC 3339) or this long ago (2h, 3d)."`
	Until       string `query:"until" jsonschema:"Only events before this time (RFC 3339) or this long ago."`
	Before      int64  `query:"before" jsonschema:"Only events before this event_seq (older pages)."`
	Limit       int    `query:"limit" jsonschema:"The newest this many matching events (default 50, at most 1000)."`
}

type logOut struct {
	RoomID string        `json:"room_id"`
	Events []stick.Event `json:"events"`
}

// history reads the newest events of the room that match every filter
// given, oldest first.
func history(c *call, q historyQuery) (logOut, error) {
	hq := stick.HistoryQuery{RoomID: c.room, Channels: list(q.Channel), From: list(q.From), Before: q.Before, Limit: q.Limit}
	for _, t := range list(q.Type) {
		hq.Types = append(hq.Types, stick.EventType(t))
	}
	for _, t := range list(q.MessageType) {
		hq.NoteTypes = append(hq.NoteTypes, stick.NoteType(t))
	}
	if err := hq.SetSpan(q.Since, q.Until); err != nil {
		return logOut{}, err
	}
	evs, err := c.svc.History(c.ctx, hq)
	if evs == nil {
		evs = []stick.Event{}
	}
	return logOut{RoomID: c.room, Events: evs}, err
}

// list splits a comma-separated query value.
func list(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

type handleIn struct {
	Handle string `json:"handle" jsonschema:"Short name: a-z, 0-9 and -, unique in the room; \"\" drops it."`
}

// setHandle chooses the caller's handle in the room.
func setHandle(c *call, in handleIn) (stick.Identity, error) {
	return c.svc.SetHandle(c.ctx, c.caller, c.room, in.Handle)
}

// whoAmI reads the caller's identity in the room.
func whoAmI(c *call, _ struct{}) (stick.Identity, error) {
	return c.svc.WhoAmI(c.ctx, c.caller, c.room)
}

type standbyIn struct {
	Off bool `json:"off,omitempty" jsonschema:"Take turns again instead."`
}

type memberOut struct {
	RoomID string             `json:"room_id"`
	Member stick.MemberStatus `json:"member"`
}

// standby puts the caller on standby in the room, or takes it off.
func standby(c *call, in standbyIn) (memberOut, error) {
	m, err := c.svc.SetStandby(c.ctx, c.caller, c.room, !in.Off)
	return memberOut{RoomID: c.room, Member: m}, err
}

type removeIn struct {
	AgentID string `json:"agent_id" jsonschema:"The member to remove."`
	Reason  string `json:"reason,omitempty" jsonschema:"Why, for the log."`
}

// removeMember removes a member from the room's sequence.
func removeMember(c *call, in removeIn) (stick.RoomStatus, error) {
	return c.svc.RemoveMember(c.ctx, c.caller, c.room, in.AgentID, in.Reason)
}
