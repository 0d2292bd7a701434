package web

import (
	"strconv"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// eventView is one event of the feed, its texts made safe with package
// render (controls written out) before html/template escapes them.
type eventView struct {
	Seq  int64
	Type string
	// Verb says what happened, after the acting member's name.
	Verb     string
	From, To string
	Turn     int64
	At       time.Time
	Reason   string
	Text     string
	NoteType string
	// Recipients are the members a note is addressed to; Channel its
	// channel when not the default; Interrupt marks an interrupting note.
	Recipients []string
	Channel    string
	Interrupt  bool
	// Ref is the event a note answers or a claim received, 0 for none.
	Ref     int64
	Doc     string
	Handoff *handoffView
	// QA pairs a question with its answers and a reply with what it
	// replies to (see pairAnswers).
	QA qaView
}

// handoffView is a handoff in full.
type handoffView struct {
	Status, NextAction string
	Artifacts          []artifactView
	OpenQuestions      []string
	DoNot              []string
}

// artifactView is an artifact as path:lines with its role.
type artifactView struct {
	Loc, Role, Note string
}

// verbs say what each type of event did.
var verbs = map[stick.EventType]string{
	stick.EventClaim: "claimed the stick", stick.EventRelease: "released the stick",
	stick.EventPass: "passed the stick", stick.EventTakeover: "took over the stick",
	stick.EventClose: "closed the room", stick.EventJoin: "joined", stick.EventLeave: "left",
	stick.EventNote: "wrote", stick.EventPolicy: "changed the room's policy",
	stick.EventReorder: "reordered the members", stick.EventDoc: "edited the document",
	stick.EventConcluder: "named the member responsible for the conclusion",
}

// viewOf makes the view of an event.
func viewOf(e stick.Event) eventView {
	doc := render.DocNote(e)
	if r := render.Removal(e); r != "" {
		e.Reason = r
	}
	if td, ok := e.TakeoverData(); ok && td.TakeoverReason != "" && e.Reason == "" {
		e.Reason = string(td.TakeoverReason)
	}
	e = render.SafeEvent(e)
	v := eventView{Seq: e.Seq, Type: string(e.Type), Verb: verbs[e.Type], From: e.From, To: e.To, Turn: e.TurnID,
		At: e.CreatedAt, Reason: e.Reason, Text: e.Text, NoteType: string(e.MessageType), Ref: e.Ref, Doc: doc,
		Recipients: e.Recipients, Channel: e.Channel, Interrupt: e.Interrupt}
	if v.Verb == "" {
		v.Verb = "logged " + string(e.Type)
	}
	if e.Type == stick.EventNote {
		switch e.MessageType {
		case "", stick.NoteType("note"):
			v.NoteType = "note"
		}
	}
	if h := e.Handoff; h != nil {
		hv := &handoffView{Status: h.Status, NextAction: h.NextAction, OpenQuestions: h.OpenQuestions, DoNot: h.DoNot}
		for _, a := range h.Artifacts {
			hv.Artifacts = append(hv.Artifacts, artifactView{Loc: location(a), Role: string(a.Role), Note: a.Note})
		}
		v.Handoff = hv
	}
	return v
}

// location is an artifact's path:lines.
func location(a stick.Artifact) string {
	switch len(a.Lines) {
	case 0:
		return a.Path
	case 1:
		return a.Path + ":" + strconv.Itoa(a.Lines[0])
	}
	if a.Lines[0] == a.Lines[1] {
		return a.Path + ":" + strconv.Itoa(a.Lines[0])
	}
	return a.Path + ":" + strconv.Itoa(a.Lines[0]) + "-" + strconv.Itoa(a.Lines[1])
}
