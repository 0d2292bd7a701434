package web

import (
	"context"

	"github.com/stickhq/stick/stick"
)

// qaView pairs the notes of a feed: a question with the answers to it,
// and a reply (an answer, or any note with reply_to) with the event it
// replies to, quoted, so that a question and its answers read together
// in a feed that stays in the order of the log.
type qaView struct {
	// Question is set on a question; Answers are the answers to it found
	// (on the page, in order); Open is set on a question of the newest
	// page that has none, which no later event can hide.
	Question bool
	Answers  []int64
	Open     bool
	// CanAnswer offers the reader the link that fills the note form in
	// as an answer to this question.
	CanAnswer bool
	// AnswerTo is the question an answer answers, 0 for any other note.
	AnswerTo int64
	// Quote is the event a reply replies to, nil when it is not in the
	// room's log.
	Quote *quoteView
}

// quoteView is the event a reply replies to, its text cut short.
type quoteView struct {
	From, Type, Text string
}

// quoteLen is how many characters of a replied-to text a reply quotes.
const quoteLen = 280

// pairAnswers fills in the QA of the feed evs of room: a reply quotes the
// event it replies to (read from the log when it is on an older page),
// an answer names its question, and a question lists its answers. newest
// is set for the newest page, whose unanswered questions are open; a
// question on an older page may be answered on a newer one.
func (h *Handler) pairAnswers(ctx context.Context, svc *stick.Service, room string, evs []eventView, newest, canAnswer bool) error {
	at := make(map[int64]int, len(evs))
	for i := range evs {
		at[evs[i].Seq] = i
		if isQuestion(evs[i]) {
			evs[i].QA.Question, evs[i].QA.CanAnswer = true, canAnswer
		}
	}
	for i := range evs {
		e := &evs[i]
		if e.Type != string(stick.EventNote) || e.Ref == 0 {
			continue
		}
		var q eventView
		if j, ok := at[e.Ref]; ok {
			q = evs[j]
		} else {
			var found bool
			var err error
			if q, found, err = eventAt(ctx, svc, room, e.Ref); err != nil {
				return err
			} else if !found {
				continue
			}
		}
		e.QA.Quote = quoteOf(q)
		if e.NoteType == string(stick.NoteAnswer) && isQuestion(q) {
			e.QA.AnswerTo = q.Seq
			if j, ok := at[e.Ref]; ok {
				evs[j].QA.Answers = append(evs[j].QA.Answers, e.Seq)
			}
		}
	}
	for i := range evs {
		evs[i].QA.Open = newest && evs[i].QA.Question && len(evs[i].QA.Answers) == 0
	}
	return nil
}

// liveView is the view of an event the live stream sends: a new question
// is open, a reply quotes what it replies to.
func (h *Handler) liveView(ctx context.Context, svc *stick.Service, room string, e stick.Event, canAnswer bool) (eventView, error) {
	evs := []eventView{viewOf(e)}
	err := h.pairAnswers(ctx, svc, room, evs, true, canAnswer)
	return evs[0], err
}

// eventAt reads the event seq of room, found false when the log has none.
func eventAt(ctx context.Context, svc *stick.Service, room string, seq int64) (eventView, bool, error) {
	page, err := svc.RoomEvents(ctx, room, seq-1, 1)
	if err != nil || len(page.Events) == 0 || page.Events[0].Seq != seq {
		return eventView{}, false, err
	}
	return viewOf(page.Events[0]), true, nil
}

// isQuestion reports whether e is a question.
func isQuestion(e eventView) bool {
	return e.Type == string(stick.EventNote) && e.NoteType == string(stick.NoteQuestion)
}

// quoteOf quotes e, its text cut to quoteLen characters.
func quoteOf(e eventView) *quoteView {
	q := &quoteView{From: e.From, Type: e.NoteType, Text: e.Text}
	if e.Type != string(stick.EventNote) {
		q.Type, q.Text = "", e.Verb
	}
	if r := []rune(q.Text); len(r) > quoteLen {
		q.Text = string(r[:quoteLen]) + "…"
	}
	return q
}
