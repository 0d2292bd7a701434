package render

import (
	"io"

	"github.com/stickhq/stick/stick"
)

// The Safe functions return a copy of what a room holds with every string
// made harmless to print: single-line fields (ids, paths, types, reasons,
// roles) with Line, texts of several lines (notes, handoff fields, the
// document) with Text. Text output goes through them; JSON output does not
// need them, as encoding/json escapes controls.

// SafeEvent is e made safe to print as text.
func SafeEvent(e stick.Event) stick.Event {
	e.ID, e.RoomID = Line(e.ID), Line(e.RoomID)
	e.Type, e.MessageType = stick.EventType(Line(string(e.Type))), stick.NoteType(Line(string(e.MessageType)))
	e.From, e.To, e.Reason = Line(e.From), Line(e.To), Line(e.Reason)
	e.ClientMessageID, e.Channel = Line(e.ClientMessageID), Line(e.Channel)
	if len(e.Recipients) > 0 {
		to := make([]string, len(e.Recipients))
		for i, r := range e.Recipients {
			to[i] = Line(r)
		}
		e.Recipients = to
	}
	e.Text = Text(e.Text)
	if len(e.Data) > 0 {
		e.Data = []byte(Line(string(e.Data)))
	}
	if e.Handoff != nil {
		h := SafeHandoff(*e.Handoff)
		e.Handoff = &h
	}
	return e
}

// SafeHandoff is h made safe to print as text.
func SafeHandoff(h stick.Handoff) stick.Handoff {
	h.Status, h.NextAction = Text(h.Status), Text(h.NextAction)
	arts := make([]stick.Artifact, len(h.Artifacts))
	for i, a := range h.Artifacts {
		a.Path, a.Role, a.Note = Line(a.Path), stick.Role(Line(string(a.Role))), Text(a.Note)
		arts[i] = a
	}
	if h.Artifacts != nil {
		h.Artifacts = arts
	}
	if h.OpenQuestions != nil {
		h.OpenQuestions = Texts(h.OpenQuestions)
	}
	if h.DoNot != nil {
		h.DoNot = Texts(h.DoNot)
	}
	return h
}

// SafeStatus is st made safe to print as text.
func SafeStatus(st stick.RoomStatus) stick.RoomStatus {
	st.RoomID, st.CanonicalPath = Line(st.RoomID), Line(st.CanonicalPath)
	st.RoomKey, st.RoomName = Line(st.RoomKey), Line(st.RoomName)
	st.Owner, st.ReservedFor, st.Concluder = Line(st.Owner), Line(st.ReservedFor), Line(st.Concluder)
	members := make([]stick.MemberStatus, len(st.Members))
	for i, m := range st.Members {
		m.AgentID, m.DisplayName = Line(m.AgentID), Line(m.DisplayName)
		m.Status, m.TurnRole, m.Handle = Line(m.Status), Line(m.TurnRole), Line(m.Handle)
		if m.Wake != nil {
			w := *m.Wake
			w.Transports, w.LastState, w.LastTransport = Lines(w.Transports), Line(w.LastState), Line(w.LastTransport)
			m.Wake = &w
		}
		members[i] = m
	}
	if st.Members != nil {
		st.Members = members
	}
	if st.PendingHandoff != nil {
		e := SafeEvent(*st.PendingHandoff)
		st.PendingHandoff = &e
	}
	return st
}

// SafeDocument is d made safe to print as text.
func SafeDocument(d stick.Document) stick.Document {
	d.Content = Text(d.Content)
	d.DocVersion = SafeDocVersion(d.DocVersion)
	return d
}

// SafeDocVersion is v made safe to print as text.
func SafeDocVersion(v stick.DocVersion) stick.DocVersion {
	v.RoomID, v.Author, v.Op = Line(v.RoomID), Line(v.Author), stick.DocOp(Line(string(v.Op)))
	return v
}

// SafeTranscript is t made safe to print as text.
func SafeTranscript(t stick.Transcript) stick.Transcript {
	t.Room = SafeStatus(t.Room)
	events := make([]stick.Event, len(t.Events))
	for i, e := range t.Events {
		events[i] = SafeEvent(e)
	}
	t.Events = events
	t.Document = SafeDocument(t.Document)
	return t
}

// SafeWriter returns a writer that writes everything through [Text]: for
// a log whose lines may quote a room's text (an error naming a path), read
// later on a terminal.
func SafeWriter(w io.Writer) io.Writer { return safeWriter{w} }

type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(s.w, Text(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
