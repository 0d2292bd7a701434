package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// maxEditForm bounds the body of the edit form: a document of
// stick.MaxDocLen bytes as a browser sends it at worst (each newline as
// %0D%0A, any other byte as %XX), and the form's other fields. A larger
// document gets the Service's own error, with the text kept; only a body
// past this is refused unread (readForm).
const maxEditForm = 6*stick.MaxDocLen + 64<<10

// editPattern is the route of the edit form, whose body readForm bounds
// by maxEditForm.
const editPattern = "POST /rooms/{room_id}/doc/edit"

// editBody is the body of the edit page: the form, and after a save that
// did not happen, why, with the text sent kept in it.
type editBody struct {
	Room roomRef
	// Content is the text in the form; Expected is the version it
	// started from, which a save must still find current.
	Content  string
	Expected int64
	// As is the member the person writes as; Joins is set when it is no
	// member of the room yet, so a save joins it first.
	As    string
	Joins bool
	// Controls is set when the document holds control characters, which
	// the form shows written out (render.Text), as a save then keeps them.
	Controls bool
	// Error and Hint say why the last save failed.
	Error, Hint string
	// Conflict is the change another member saved since Expected.
	Conflict *conflictView
}

// conflictView is the change others saved while the person edited: from
// the version the edit started from to the current one, who saved each
// version in between, and the diff; and, to merge by, the person's own
// change from the same version.
type conflictView struct {
	From, To  int64
	Meanwhile []versionRow
	Rows      []diffRow
	Yours     []diffRow
}

// serveDocEdit shows the form that writes a room's document: its current
// text, and the version it is, which the save sends back so that it saves
// only if no one saved another version meanwhile (compare-and-set, as
// the tools do).
func (h *Handler) serveDocEdit(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	svc := h.cfg.ServiceFor(v.principal)
	ctx := r.Context()
	room, _, err := docRoom(ctx, svc, r.PathValue("room_id"))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	if !mayWriteDoc(v, room) {
		h.cannotEdit(w, r, v, room)
		return
	}
	me, err := identity.NamePerson(v.principal)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	doc, err := svc.ReadDoc(ctx, room.ID, 0)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	body := editBody{Room: room, Expected: doc.Version}
	body.Content, body.Controls = formText(doc.Content)
	if err := h.writesAs(ctx, svc, room.ID, me, &body); err != nil {
		h.failErr(w, r, err)
		return
	}
	h.show(w, r, http.StatusOK, "docedit", v, "Edit the document of "+room.Name, body)
}

// cannotEdit is the page of a reader the edit form is not for: the room
// is closed, or the reader's role may not write.
func (h *Handler) cannotEdit(w http.ResponseWriter, r *http.Request, v viewer, room roomRef) {
	if room.Closed {
		h.fail(w, r, http.StatusConflict, "The room "+room.Name+" is closed: its document can be read but no longer written.",
			"Read it at /rooms/"+room.ID+"/doc.")
		return
	}
	need, _ := stick.Access(stick.ActionUpdateDoc)
	h.fail(w, r, http.StatusForbidden,
		"Writing a room's document needs the role "+string(need)+"; you read this hub with the role "+render.Line(string(v.principal.Role))+".",
		"Ask an operator of the hub for a token with the role "+string(need)+", and sign in with it.")
}

// writesAs fills in who the person writes as, and whether a save joins it
// to the room first.
func (h *Handler) writesAs(ctx context.Context, svc *stick.Service, roomID string, me stick.Caller, body *editBody) error {
	st, err := svc.RoomState(ctx, roomID)
	if err != nil {
		return err
	}
	body.As, body.Joins = render.Line(me.AgentID), true
	for _, m := range st.Members {
		if m.AgentID == me.AgentID {
			body.Joins = false
		}
	}
	return nil
}

// formText is a document's text as the form shows it: control characters
// written out (render.Text), as everywhere on the page; changed reports
// whether any were.
func formText(s string) (text string, changed bool) {
	text = render.Text(s)
	return text, text != strings.ReplaceAll(s, "\r\n", "\n")
}

// editDoc saves the edit form: Service.UpdateDoc with the version the
// edit started from, as the person's own member, which joins the room
// first when it is no member of it and the save can land (joinAndUpdate). A save that finds another version current is a
// conflict: nothing is saved, and the form comes back with the other
// writer's change, the text sent kept, and the current version to start
// from, so the person merges and saves again. Any other refusal comes
// back in the form too, the text kept; a success goes to the document.
func (h *Handler) editDoc(w http.ResponseWriter, r *http.Request) {
	a, ok := h.act(w, r)
	if !ok {
		return
	}
	expected, err := strconv.ParseInt(r.PostFormValue("expected"), 10, 64)
	if err != nil || expected < 0 {
		h.fail(w, r, http.StatusBadRequest, "The form does not say which version of the document it started from.",
			"Open the edit page again and save from it.")
		return
	}
	// A browser sends a text area's lines ended by CRLF; the document's
	// lines end in LF.
	content := strings.ReplaceAll(r.PostFormValue("content"), "\r\n", "\n")
	id := r.PathValue("room_id")
	ctx := r.Context()
	_, err = a.svc.UpdateDoc(ctx, a.caller, id, content, expected)
	if stick.ErrorCode(err) == stick.CodeUnknownMember {
		err = h.joinAndUpdate(ctx, a, id, content, expected)
	}
	switch code := stick.ErrorCode(err); code {
	case "":
		http.Redirect(w, r, "/rooms/"+id+"/doc", http.StatusSeeOther)
		return
	case stick.CodeForbidden, stick.CodeUnauthenticated, stick.CodeRoomNotFound:
		h.failErr(w, r, err)
		return
	}
	room, hist, rerr := docRoom(ctx, a.svc, id)
	if rerr != nil {
		h.failErr(w, r, rerr)
		return
	}
	body := editBody{Room: room, Expected: expected}
	body.Content, body.Controls = formText(content)
	if merr := h.writesAs(ctx, a.svc, room.ID, a.caller, &body); merr != nil {
		h.failErr(w, r, merr)
		return
	}
	e := stick.AsError(err)
	status, msg, hint := h.words(r, err)
	body.Error, body.Hint = msg, hint
	switch e.Code {
	case stick.CodeVersionConflict:
		status = http.StatusConflict
		c, cerr := docConflict(ctx, a.svc, room.ID, hist, expected, content)
		if cerr != nil {
			h.failErr(w, r, cerr)
			return
		}
		body.Conflict, body.Expected = c, c.To
		body.Error = "The document changed while you edited it: your edit started from version " + strconv.FormatInt(expected, 10) +
			", and it is now at version " + strconv.FormatInt(c.To, 10) + ". Nothing was saved."
		body.Hint = "Your text is kept below. Merge their change into it, then save again: the save now starts from version " + strconv.FormatInt(c.To, 10) + "."
	case stick.CodeRoomClosed:
		status = http.StatusConflict
	}
	h.show(w, r, status, "docedit", a.viewer, "Edit the document of "+room.Name, body)
}

// joinAndUpdate saves the document of a room the person is no member of
// yet: it joins the room by its id (the Service joins only that room, and
// refuses it once closed), then saves. So as not to make the person a
// member for a save that would be refused, it first reads the document:
// when another version is current, it saves without joining, and the
// Service's version_conflict (or the refusal it finds first) comes back
// unjoined. Only a save that lands between that read and the update
// leaves the person joined with nothing saved.
func (h *Handler) joinAndUpdate(ctx context.Context, a actor, roomID, content string, expected int64) error {
	cur, err := a.svc.ReadDoc(ctx, roomID, 0)
	if err != nil {
		return err
	}
	if cur.Version != expected {
		return conflictOf(cur, expected)
	}
	if _, err := a.svc.JoinPath(ctx, a.caller, stick.JoinRequest{RoomID: roomID}); err != nil {
		return err
	}
	_, err = a.svc.UpdateDoc(ctx, a.caller, roomID, content, expected)
	return err
}

// conflictOf is the version_conflict UpdateDoc gives a save that started
// from expected when cur is current, for a person who could not send it
// to the Service unjoined.
func conflictOf(cur stick.Document, expected int64) error {
	return stick.Errorf(stick.CodeVersionConflict, "the document is at version %d, not %d", cur.Version, expected).
		With("current_version", cur.Version).With("expected_version", expected)
}

// docConflict reads what others saved since version from: the versions
// after it, and the diff from it to the current one; and the diff from it
// to mine, the text the person sent.
func docConflict(ctx context.Context, svc *stick.Service, roomID string, hist []stick.DocVersion, from int64, mine string) (*conflictView, error) {
	cur, err := svc.ReadDoc(ctx, roomID, 0)
	if err != nil {
		return nil, err
	}
	base := ""
	if from > 0 && from < cur.Version {
		d, err := svc.ReadDoc(ctx, roomID, from)
		if err != nil {
			return nil, err
		}
		base = d.Content
	}
	c := &conflictView{From: from, To: cur.Version, Rows: diffRows(base, cur.Content), Yours: diffRows(base, mine)}
	for _, v := range hist {
		if v.Version > from && v.Version <= cur.Version {
			c.Meanwhile = append(c.Meanwhile, versionRowOf(v, cur.Version, -1))
		}
	}
	return c, nil
}
