package cli

import (
	"io"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// The safe functions return a copy of what a room holds with every string
// made harmless to print (package render): single-line fields (ids, paths,
// types, reasons, roles) with render.Line, texts of several lines (notes,
// handoff fields, the document) with render.Text. Text output goes through
// them; JSON output does not need them, as encoding/json escapes controls.

// safeEvent is e made safe to print as text.
func safeEvent(e stick.Event) stick.Event {
	e.ID, e.RoomID = render.Line(e.ID), render.Line(e.RoomID)
	e.Type, e.MessageType = stick.EventType(render.Line(string(e.Type))), stick.NoteType(render.Line(string(e.MessageType)))
	e.From, e.To, e.Reason = render.Line(e.From), render.Line(e.To), render.Line(e.Reason)
	e.ClientMessageID = render.Line(e.ClientMessageID)
	e.Text = render.Text(e.Text)
	if len(e.Data) > 0 {
		e.Data = []byte(render.Line(string(e.Data)))
	}
	if e.Handoff != nil {
		h := safeHandoff(*e.Handoff)
		e.Handoff = &h
	}
	return e
}

// safeHandoff is h made safe to print as text.
func safeHandoff(h stick.Handoff) stick.Handoff {
	h.Status, h.NextAction = render.Text(h.Status), render.Text(h.NextAction)
	arts := make([]stick.Artifact, len(h.Artifacts))
	for i, a := range h.Artifacts {
		a.Path, a.Role, a.Note = render.Line(a.Path), stick.Role(render.Line(string(a.Role))), render.Text(a.Note)
		arts[i] = a
	}
	if h.Artifacts != nil {
		h.Artifacts = arts
	}
	if h.OpenQuestions != nil {
		h.OpenQuestions = render.Texts(h.OpenQuestions)
	}
	if h.DoNot != nil {
		h.DoNot = render.Texts(h.DoNot)
	}
	return h
}

// safeStatus is st made safe to print as text.
func safeStatus(st stick.RoomStatus) stick.RoomStatus {
	st.RoomID, st.CanonicalPath = render.Line(st.RoomID), render.Line(st.CanonicalPath)
	st.RoomKey, st.RoomName = render.Line(st.RoomKey), render.Line(st.RoomName)
	st.Owner, st.ReservedFor = render.Line(st.Owner), render.Line(st.ReservedFor)
	members := make([]stick.MemberStatus, len(st.Members))
	for i, m := range st.Members {
		m.AgentID, m.DisplayName = render.Line(m.AgentID), render.Line(m.DisplayName)
		m.Status, m.TurnRole = render.Line(m.Status), render.Line(m.TurnRole)
		members[i] = m
	}
	if st.Members != nil {
		st.Members = members
	}
	if st.PendingHandoff != nil {
		e := safeEvent(*st.PendingHandoff)
		st.PendingHandoff = &e
	}
	return st
}

// safeSummary is r made safe to print as text.
func safeSummary(r stick.RoomSummary) stick.RoomSummary {
	r.RoomID, r.CanonicalPath = render.Line(r.RoomID), render.Line(r.CanonicalPath)
	r.RoomKey, r.RoomName = render.Line(r.RoomKey), render.Line(r.RoomName)
	r.Owner, r.ReservedFor = render.Line(r.Owner), render.Line(r.ReservedFor)
	return r
}

// safeDoc is d made safe to print as text.
func safeDoc(d stick.Document) stick.Document {
	d.Content = render.Text(d.Content)
	d.DocVersion = safeDocVersion(d.DocVersion)
	return d
}

// safeDocVersion is v made safe to print as text.
func safeDocVersion(v stick.DocVersion) stick.DocVersion {
	v.RoomID, v.Author, v.Op = render.Line(v.RoomID), render.Line(v.Author), stick.DocOp(render.Line(string(v.Op)))
	return v
}

// safeTranscript is t made safe to print as text.
func safeTranscript(t stick.Transcript) stick.Transcript {
	t.Room = safeStatus(t.Room)
	events := make([]stick.Event, len(t.Events))
	for i, e := range t.Events {
		events[i] = safeEvent(e)
	}
	t.Events = events
	t.Document = safeDoc(t.Document)
	return t
}

// safeWriter writes everything through render.Text: for a log whose lines
// may quote a room's text (an error naming a path), read later on a
// terminal.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(s.w, render.Text(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
