package web

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// Taking part by hand: a reader whose role may write joins a room, posts
// a note (a question, an answer, a decision), hands the stick on with a
// handoff, or takes it over, as its own member (identity.NamePerson),
// never as one of its agents. Every form goes through act, then one call
// of the reader's Service, which decides; a refusal shows the room again
// with the form as the reader filled it in and the Service's reason next
// to it, and nothing changed. Success goes back to the room at the new
// event (303 See Other).

// actView is what the room's page offers the reader to do by hand
// (templates/takepart.html), with the forms' values.
type actView struct {
	// Me is the reader's member in rooms; Member is set when it is one of
	// this room's members, Holder when it holds the stick.
	Me             string
	Member, Holder bool
	// Turn is the room's turn the forms were made at: a hand-on or a
	// takeover of a room that moved on since is refused (turn_mismatch).
	Turn int64
	// Other is the member that has the stick, holding it or reserved
	// for it, when that is not the reader; Takeover is why takeover is
	// open, "" when it is not.
	Other, Takeover string
	// Members are the members the stick may be passed to.
	Members   []option
	NoteTypes []string
	Note      noteForm
	Hand      handForm
	Take      takeForm
	// Join is the refusal of a join or a leave, nil for none.
	Join *formErr
	// Closed is set when the room closed after the reader's form was
	// made: the form comes back with its text to copy, and sends nothing.
	Closed bool
}

// option is a member of the pass form's list.
type option struct {
	ID, Label string
}

// noteForm is the note form's values.
type noteForm struct {
	// Type is one of NoteTypes, or "custom" for the type in Custom.
	Type, Custom, ReplyTo, Text string
	// ID is the note's client message id: sending the same form twice
	// posts it once.
	ID  string
	Err *formErr
}

// handForm is the hand-on form's values.
type handForm struct {
	// To is the member to pass to, "" for the next in order.
	To, Status, Next, Artifacts, Questions, DoNot string
	Err                                           *formErr
}

// takeForm is the takeover form's values.
type takeForm struct {
	Reason string
	Err    *formErr
}

// formErr is why the Service (or the form's reading) refused a form.
type formErr struct {
	Code, Message, Hint, Field string
}

// actForm is a form sent back with a refusal: the one that is set.
type actForm struct {
	Note *noteForm
	Hand *handForm
	Take *takeForm
	Join *formErr
}

// customType is the note form's choice of a type of one's own.
const customType = "custom"

// actOf makes what the room st offers the reader v by hand, with form's
// values when a form came back refused; nil for a reader whose role may
// not write (a viewer sees no control that writes), for a closed room
// (unless a form came back from it: its text is kept, see
// actView.Closed), and for a principal no member can be named for.
func (h *Handler) actOf(r *http.Request, v viewer, st stick.RoomStatus, form *actForm) *actView {
	need, _ := stick.Access(stick.ActionPost)
	closed := st.State == stick.StateClosed
	if !v.principal.Role.AtLeast(need) || closed && form == nil {
		return nil
	}
	c, err := identity.NamePerson(v.principal)
	if err != nil {
		return nil
	}
	a := &actView{Me: c.AgentID, Turn: st.TurnID, Takeover: render.Line(string(st.Takeover)), Closed: closed,
		Holder: st.StoredState == stick.StateOwned && st.Owner == c.AgentID}
	switch {
	case st.StoredState == stick.StateOwned && st.Owner != c.AgentID:
		a.Other = render.Line(st.Owner)
	case st.StoredState == stick.StateReserved && st.ReservedFor != c.AgentID:
		a.Other = render.Line(st.ReservedFor)
	}
	for _, m := range st.Members {
		if m.AgentID == c.AgentID {
			a.Member = true
			continue
		}
		a.Members = append(a.Members, option{ID: m.AgentID, Label: render.Line(m.AgentID) + " (" + render.Line(m.Status) + ")"})
	}
	for _, t := range stick.NoteTypes {
		a.NoteTypes = append(a.NoteTypes, string(t))
	}
	a.Note = noteForm{Type: string(stick.DefaultNoteType), ID: newNoteID()}
	if q := r.URL.Query().Get("answer"); q != "" {
		if n, err := strconv.ParseInt(q, 10, 64); err == nil && n > 0 {
			a.Note.Type, a.Note.ReplyTo = string(stick.NoteAnswer), strconv.FormatInt(n, 10)
		}
	}
	if form != nil {
		switch {
		case form.Note != nil:
			a.Note = form.Note.safe()
		case form.Hand != nil:
			a.Hand = form.Hand.safe()
		case form.Take != nil:
			a.Take = form.Take.safe()
		}
		a.Join = form.Join
	}
	return a
}

// The forms a refusal sends back show what the reader wrote as any text
// of a member is shown: its control characters written out (package
// render), before html/template escapes it.

func (f noteForm) safe() noteForm {
	f.Type, f.Custom, f.ReplyTo, f.Text, f.ID = render.Line(f.Type), render.Line(f.Custom), render.Line(f.ReplyTo), render.Text(f.Text), render.Line(f.ID)
	return f
}

func (f handForm) safe() handForm {
	f.To, f.Status, f.Next = render.Line(f.To), render.Text(f.Status), render.Text(f.Next)
	f.Artifacts, f.Questions, f.DoNot = render.Text(f.Artifacts), render.Text(f.Questions), render.Text(f.DoNot)
	return f
}

func (f takeForm) safe() takeForm {
	f.Reason = render.Line(f.Reason)
	return f
}

// newNoteID is a fresh client message id for a note form.
func newNoteID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "web-" + hex.EncodeToString(b[:])
}

// postJoin makes the reader's member a member of the room: the domain
// asks a member to join before it posts or takes turns, and a join puts
// it in the order the stick goes round in.
func (h *Handler) postJoin(w http.ResponseWriter, r *http.Request) {
	a, ok := h.act(w, r)
	if !ok {
		return
	}
	id := r.PathValue("room_id")
	if _, err := a.svc.JoinPath(r.Context(), a.caller, stick.JoinRequest{RoomID: id}); err != nil {
		h.refuse(w, r, a, &actForm{}, err)
		return
	}
	http.Redirect(w, r, roomURL(id)+"#take-part", http.StatusSeeOther)
}

// postLeave takes the reader's member out of the room.
func (h *Handler) postLeave(w http.ResponseWriter, r *http.Request) {
	a, ok := h.act(w, r)
	if !ok {
		return
	}
	id := r.PathValue("room_id")
	if err := a.svc.Leave(r.Context(), a.caller, id); err != nil {
		h.refuse(w, r, a, &actForm{}, err)
		return
	}
	http.Redirect(w, r, roomURL(id)+"#take-part", http.StatusSeeOther)
}

// postNote posts a note to the room (stick.Service.Post).
func (h *Handler) postNote(w http.ResponseWriter, r *http.Request) {
	a, ok := h.act(w, r)
	if !ok {
		return
	}
	id := r.PathValue("room_id")
	f := noteForm{Type: r.PostFormValue("type"), Custom: r.PostFormValue("custom_type"), ReplyTo: r.PostFormValue("reply_to"),
		Text: unix(r.PostFormValue("text")), ID: r.PostFormValue("client_id")}
	n := stick.Note{Text: f.Text, Type: stick.NoteType(f.Type), ClientMessageID: f.ID}
	if f.Type == customType {
		n.Type = stick.NoteType(f.Custom)
	}
	if f.ReplyTo != "" {
		seq, err := strconv.ParseInt(f.ReplyTo, 10, 64)
		if err != nil || seq <= 0 {
			h.refuse(w, r, a, &actForm{Note: &f}, stick.Errorf(stick.CodeInvalidArgument, "In reply to must be the number of an event of the room, as #12 shows it.").
				With("field", "reply_to").WithHint("leave it empty for a note that replies to nothing"))
			return
		}
		n.ReplyTo = seq
	}
	res, err := a.svc.Post(r.Context(), a.caller, id, n)
	if err == nil && res.TextDiffers {
		err = stick.Errorf(stick.CodeInvalidArgument, "This form was already sent, as #%d, with another text, which stands.", res.Event.Seq).
			WithHint("reload the page to write another note")
	}
	if err != nil {
		h.refuse(w, r, a, &actForm{Note: &f}, err)
		return
	}
	http.Redirect(w, r, eventURL(id, res.Event.Seq), http.StatusSeeOther)
}

// postHandOn hands the stick on with a handoff, to a member or to the
// next in order (stick.Service.HandOn).
func (h *Handler) postHandOn(w http.ResponseWriter, r *http.Request) {
	a, ok := h.act(w, r)
	if !ok {
		return
	}
	id := r.PathValue("room_id")
	f := handForm{To: r.PostFormValue("to"), Status: unix(r.PostFormValue("status")), Next: unix(r.PostFormValue("next_action")),
		Artifacts: unix(r.PostFormValue("artifacts")), Questions: unix(r.PostFormValue("open_questions")), DoNot: unix(r.PostFormValue("do_not"))}
	turn, err := formTurn(r)
	if err != nil {
		h.refuse(w, r, a, &actForm{Hand: &f}, err)
		return
	}
	arts, err := parseArtifacts(f.Artifacts)
	if err != nil {
		h.refuse(w, r, a, &actForm{Hand: &f}, err)
		return
	}
	hand := stick.Handoff{Status: f.Status, NextAction: f.Next, Artifacts: arts, OpenQuestions: entries(f.Questions), DoNot: entries(f.DoNot)}
	res, err := a.svc.HandOn(r.Context(), a.caller, id, turn, f.To, hand)
	if err != nil {
		h.refuse(w, r, a, &actForm{Hand: &f}, err)
		return
	}
	http.Redirect(w, r, eventURL(id, res.EventSeq), http.StatusSeeOther)
}

// postTakeover takes the stick of a failed turn over, with the reason the
// domain asks for (stick.Service.Takeover).
func (h *Handler) postTakeover(w http.ResponseWriter, r *http.Request) {
	a, ok := h.act(w, r)
	if !ok {
		return
	}
	id := r.PathValue("room_id")
	f := takeForm{Reason: unix(r.PostFormValue("reason"))}
	turn, err := formTurn(r)
	if err != nil {
		h.refuse(w, r, a, &actForm{Take: &f}, err)
		return
	}
	res, err := a.svc.Takeover(r.Context(), a.caller, id, turn, f.Reason)
	if err != nil {
		h.refuse(w, r, a, &actForm{Take: &f}, err)
		return
	}
	http.Redirect(w, r, eventURL(id, res.EventSeq), http.StatusSeeOther)
}

// formTurn reads the turn a form was made at.
func formTurn(r *http.Request) (int64, error) {
	turn, err := strconv.ParseInt(r.PostFormValue("turn"), 10, 64)
	if err != nil || turn < 0 {
		return 0, stick.Errorf(stick.CodeInvalidArgument, "The form lost the turn of the room it was made at.").With("field", "turn").
			WithHint("reload the page and send the form from it again")
	}
	return turn, nil
}

// refuse answers a form the Service (or its reading) refused: the room
// again, with the form as the reader filled it in and the reason next to
// it. A refusal that leaves no room to show (forbidden: a viewer's forged
// form; a room not found; an expired sign-in) is the error page.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, a actor, form *actForm, err error) {
	e := stick.AsError(err)
	switch e.Code {
	case stick.CodeForbidden, stick.CodeUnauthenticated, stick.CodeRoomNotFound, stick.CodeInternal:
		h.failErr(w, r, err)
		return
	}
	if statusOf(e.Code) == http.StatusInternalServerError {
		h.failErr(w, r, err)
		return
	}
	fe := &formErr{Code: string(e.Code), Message: render.Text(e.Message), Hint: render.Text(e.Hint)}
	if f, ok := e.Details["field"].(string); ok {
		fe.Field = render.Line(f)
	}
	if e.Code == stick.CodeUnknownMember && e.Details["agent_id"] == a.caller.AgentID {
		fe.Hint = "Join the room first, with the Join button above: a member takes part in the order the stick goes round in, and a release may reserve the stick for it."
	}
	switch {
	case form.Note != nil:
		form.Note.Err = fe
	case form.Hand != nil:
		form.Hand.Err = fe
	case form.Take != nil:
		form.Take.Err = fe
	default:
		form.Join = fe
	}
	status := http.StatusConflict
	switch e.Code {
	case stick.CodeInvalidArgument, stick.CodeInvalidHandoff:
		status = http.StatusUnprocessableEntity
	case stick.CodeDBBusy, stick.CodeDBUnavailable, stick.CodeCanceled:
		// Worth sending again as it is: the form keeps it.
		status = http.StatusServiceUnavailable
	}
	h.room(w, r, status, form)
}

// roomURL is the path of a room's page.
func roomURL(id string) string { return "/rooms/" + url.PathEscape(id) }

// eventURL is the path of a room's page at one of its events.
func eventURL(id string, seq int64) string {
	return roomURL(id) + "#e" + strconv.FormatInt(seq, 10)
}

// on reports whether e names field, or an entry of it (artifacts[2].lines
// is on artifacts).
func (e *formErr) on(field string) bool {
	return e != nil && (e.Field == field || strings.HasPrefix(e.Field, field+"[") || strings.HasPrefix(e.Field, field+"."))
}

// Bad reports whether the note form's refusal names field.
func (f noteForm) Bad(field string) bool { return f.Err.on(field) }

// Bad reports whether the hand-on form's refusal names field.
func (f handForm) Bad(field string) bool { return f.Err.on(field) }

// Bad reports whether the takeover form's refusal names field.
func (f takeForm) Bad(field string) bool { return f.Err.on(field) }
