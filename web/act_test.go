package web_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// me is the member the open hub's local principal acts as on the page.
const me = "human:local@local"

// signIn makes a token of role and signs a browser in with it.
func (e *env) signIn(name string, role stick.AccessRole) *http.Client {
	e.t.Helper()
	_, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: name, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	c := e.client()
	m := csrfRe.FindStringSubmatch(e.page(c, "/signin"))
	if m == nil {
		e.t.Fatal("no CSRF token on the sign-in page")
	}
	resp, err := c.PostForm(e.srv.URL+"/signin", url.Values{"token": {secret}, "csrf": {m[1]}})
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	return c
}

// reply is the answer to a form: its status, the Location of a
// redirect, and its body.
type reply struct {
	status    int
	loc, body string
}

// submit sends a form of the room's page as the browser c: the CSRF
// value comes from the page, as a browser's would.
func (e *env) submit(c *http.Client, room, action string, v url.Values) reply {
	e.t.Helper()
	m := csrfRe.FindStringSubmatch(e.page(c, "/rooms/"+room))
	if m == nil {
		e.t.Fatal("no CSRF token on the room's page")
	}
	v.Set("csrf", m[1])
	return e.post(c, "/rooms/"+room+"/"+action, v)
}

// post sends a form as it is.
func (e *env) post(c *http.Client, path string, v url.Values) reply {
	e.t.Helper()
	resp, err := c.PostForm(e.srv.URL+path, v)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header.Get("Location"), string(b)}
}

// events returns the room's log.
func (e *env) events(room string) []stick.Event {
	e.t.Helper()
	page, err := e.svc.RoomEvents(e.ctx, room, 0, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	return page.Events
}

// frozen is what a refused form must leave as it was: the room's turn,
// holder, recipient and members, and its log.
func (e *env) frozen(room string) string {
	e.t.Helper()
	st, err := e.svc.RoomState(e.ctx, room)
	if err != nil {
		e.t.Fatal(err)
	}
	ids := []string{}
	for _, m := range st.Members {
		ids = append(ids, m.AgentID)
	}
	b, _ := json.Marshal([]any{st.StoredState, st.Owner, st.ReservedFor, st.TurnID, ids, e.events(room)})
	return string(b)
}

// landed checks a form's success: 303 back to the room at its newest
// event, which it returns.
func (e *env) landed(room string, r reply) stick.Event {
	e.t.Helper()
	evs := e.events(room)
	last := evs[len(evs)-1]
	if want := "/rooms/" + room + "#e" + itoa(last.Seq); r.status != http.StatusSeeOther || r.loc != want {
		e.t.Fatalf("want 303 to %s, got %d %s\n%s", want, r.status, r.loc, clipped(r.body))
	}
	return last
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestPostNotesAsOwnMember(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "notes")
	c := e.client()
	body := e.page(c, "/rooms/"+room)
	for _, want := range []string{"Take part", me, `action="/rooms/` + room + `/join"`, "Join the room", `id="note-form"`, `<label for="note-text">`} {
		if !strings.Contains(body, want) {
			t.Errorf("the room's page lacks %q", want)
		}
	}
	// The domain asks a member to join first: a note before is refused,
	// its text kept.
	before := e.frozen(room)
	r := e.submit(c, room, "notes", url.Values{"type": {"note"}, "text": {"before joining"}})
	st, page := r.status, r.body
	if st != http.StatusConflict || !strings.Contains(page, "unknown_member") || !strings.Contains(page, "Join the room first") ||
		!strings.Contains(page, ">before joining</textarea>") {
		t.Fatalf("a note before joining: %d\n%s", st, page)
	}
	if e.frozen(room) != before {
		t.Fatal("a refused note changed the room")
	}
	if r := e.submit(c, room, "join", url.Values{}); r.status != http.StatusSeeOther || r.loc != "/rooms/"+room+"#take-part" {
		t.Fatalf("join: %d %s", r.status, r.loc)
	}
	if body := e.page(c, "/rooms/"+room); !strings.Contains(body, "You are a member of this room") || !strings.Contains(body, "Leave the room") {
		t.Fatal("the page does not say the reader is a member")
	}
	note := e.landed(room, e.submit(c, room, "notes", url.Values{"type": {"note"}, "text": {"CI is red\r\non main"}}))
	q := e.landed(room, e.submit(c, room, "notes", url.Values{"type": {"question"}, "text": {"keep the old flag?"}}))
	a := e.landed(room, e.submit(c, room, "notes", url.Values{"type": {"answer"}, "reply_to": {itoa(q.Seq)}, "text": {"yes, until v2"}}))
	x := e.landed(room, e.submit(c, room, "notes", url.Values{"type": {"custom"}, "custom_type": {"x-ci-status"}, "text": {"green"}}))
	for _, ev := range []stick.Event{note, q, a, x} {
		if ev.From != me || ev.Type != stick.EventNote {
			t.Fatalf("a note not by the reader's own member: %+v", ev)
		}
	}
	if note.Text != "CI is red\non main" || q.MessageType != stick.NoteQuestion || a.MessageType != stick.NoteAnswer || a.Ref != q.Seq ||
		x.MessageType != "x-ci-status" {
		t.Fatalf("the notes as stored: %+v %+v %+v %+v", note, q, a, x)
	}
	// Hostile text posted from the page is shown as text.
	evil := e.landed(room, e.submit(c, room, "notes", url.Values{"type": {"question"}, "text": {hostile + strings.Repeat("q", 60000)}}))
	e.landed(room, e.submit(c, room, "handon", url.Values{"turn": {"0"}, "to": {"codex:a1"}, "status": {hostile}, "next_action": {hostile},
		"artifacts": {"javascript:alert(3) edit " + hostile}, "open_questions": {hostile}, "do_not": {hostile}}))
	page = e.page(c, "/rooms/"+room)
	noRawScript(t, "posted from the page", page)
	if !strings.Contains(item(t, page, evil.Seq), "&lt;script&gt;alert(1)&lt;/script&gt;") || strings.Count(page, `\x1b[31mred`) < 6 {
		t.Error("the hostile note and handoff are not shown, escaped")
	}
	// Sending the same form twice posts once.
	m := csrfRe.FindStringSubmatch(e.page(c, "/rooms/"+room))
	v := url.Values{"csrf": {m[1]}, "type": {"note"}, "text": {"once"}, "client_id": {"web-0123456789abcdef"}}
	first := e.landed(room, e.post(c, "/rooms/"+room+"/notes", v))
	if r := e.post(c, "/rooms/"+room+"/notes", v); r.status != http.StatusSeeOther || r.loc != "/rooms/"+room+"#e"+itoa(first.Seq) ||
		len(e.events(room)) != int(first.Seq) {
		t.Fatalf("a form sent twice: %d %s", r.status, r.loc)
	}
	if r := e.submit(c, room, "leave", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("leave: %d", r.status)
	}
	if body := e.page(c, "/rooms/"+room); !strings.Contains(body, "You are not a member of this room") {
		t.Fatal("after leaving, the page says the reader is a member")
	}
}

func TestHandOnWithAFullHandoff(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "relay")
	c := e.client()
	e.submit(c, room, "join", url.Values{})
	body := e.page(c, "/rooms/"+room)
	for _, want := range []string{`id="hand-form"`, `<option value="codex:a1">codex:a1 (active)</option>`, "the next member in order",
		"handing it on takes it first", `name="turn" value="0"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the hand-on form lacks %q", want)
		}
	}
	v := url.Values{"to": {"codex:a1"}, "turn": {"0"}, "status": {"parser done\r\nlexer half done"}, "next_action": {"finish the lexer"},
		"artifacts":      {"lex/lex.go:10-42 edit the main loop\r\n\r\n  docs/plan.md context\r\nREADME.md:7\r\nC:/x/y.go:3-4 REVIEW"},
		"open_questions": {"keep tabs?\r\n\r\nwhich Go?"}, "do_not": {"touch go.mod"}}
	pass := e.landed(room, e.submit(c, room, "handon", v))
	if pass.Type != stick.EventPass || pass.From != me || pass.To != "codex:a1" {
		t.Fatalf("the pass: %+v", pass)
	}
	w := e.claimAs("codex:a1", room)
	want := stick.Handoff{Status: "parser done\nlexer half done", NextAction: "finish the lexer",
		Artifacts: []stick.Artifact{
			{Path: "lex/lex.go", Lines: []int{10, 42}, Role: stick.RoleEdit, Note: "the main loop"},
			{Path: "docs/plan.md", Role: stick.RoleContext},
			{Path: "README.md", Lines: []int{7, 7}, Role: stick.RoleExamine},
			{Path: "C:/x/y.go", Lines: []int{3, 4}, Role: stick.RoleReview},
		},
		OpenQuestions: []string{"keep tabs?", "which Go?"}, DoNot: []string{"touch go.mod"}}
	if got, exp := jsonOf(w.Handoff), jsonOf(&want); got != exp || w.FromAgentID != me {
		t.Fatalf("codex received\n%s\nwant\n%s (from %s)", got, exp, w.FromAgentID)
	}
	// codex releases in order: the stick is reserved for the person, who
	// hands it on to the next in order (codex) from the page.
	if _, err := e.svc.Release(e.ctx, agent("codex:a1"), w.Lease(), stick.Handoff{Status: "lexer done", NextAction: "review"}); err != nil {
		t.Fatal(err)
	}
	body = e.page(c, "/rooms/"+room)
	m := regexp.MustCompile(`name="turn" value="(\d+)"`).FindStringSubmatch(body)
	rel := e.landed(room, e.submit(c, room, "handon", url.Values{"turn": {m[1]}, "status": {"reviewed"}, "next_action": {"ship it"}}))
	if rel.Type != stick.EventRelease || rel.From != me || rel.To != "codex:a1" {
		t.Fatalf("the release: %+v", rel)
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// claimAs takes the stick as the agent id, which must get it now.
func (e *env) claimAs(id, room string) stick.WaitResult {
	e.t.Helper()
	zero := time.Duration(0)
	w, err := e.svc.WaitForTurn(e.ctx, agent(id), stick.WaitRequest{RoomID: room, MaxWait: &zero})
	if err != nil || w.Status != stick.YourTurn {
		e.t.Fatalf("%s: %+v %v", id, w, err)
	}
	return w
}

// deadHolder makes a member whose process has exited hold the stick of
// room: its turn failed (owner_gone), so takeover is open.
func (e *env) deadHolder(id, room string) {
	e.t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		e.t.Skipf("no sleep to run: %v", err)
	}
	ident, err := procid.Of(cmd.Process.Pid)
	if err != nil {
		e.t.Fatal(err)
	}
	c := stick.Caller{AgentID: id, Kind: stick.KindHarness, Process: ident}
	res, err := e.svc.JoinPath(e.ctx, c, stick.JoinRequest{RoomID: room})
	if err != nil {
		e.t.Fatal(err)
	}
	zero := time.Duration(0)
	if w, err := e.svc.WaitForTurn(e.ctx, c, stick.WaitRequest{RoomID: res.RoomID, MaxWait: &zero}); err != nil || w.Status != stick.YourTurn {
		e.t.Fatalf("the holder-to-be: %+v %v", w, err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

func TestTakeOverWithAReason(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "rescue")
	c := e.client()
	e.submit(c, room, "join", url.Values{})
	// A live holder's turn has not failed: takeover is refused, and
	// nothing changes.
	e.claimAs("codex:a1", room)
	body := e.page(c, "/rooms/"+room)
	if !strings.Contains(body, `id="take-form"`) || !strings.Contains(body, "Takeover opens only when codex:a1") {
		t.Fatalf("no takeover form while another member holds the stick:\n%s", body)
	}
	before := e.frozen(room)
	r := e.submit(c, room, "takeover", url.Values{"turn": {"1"}, "reason": {"I want it"}})
	st, page := r.status, r.body
	if st != http.StatusConflict || !strings.Contains(page, "takeover_not_available") || !strings.Contains(page, `value="I want it"`) {
		t.Fatalf("a takeover of a live turn: %d\n%s", st, page)
	}
	if e.frozen(room) != before {
		t.Fatal("a refused takeover changed the room")
	}
	// Hand-on while codex holds: stick_held, the handoff kept.
	r = e.submit(c, room, "handon", url.Values{"turn": {"1"}, "status": {"my status " + hostile}, "next_action": {"my next"}})
	st, page = r.status, r.body
	if st != http.StatusConflict || !strings.Contains(page, "stick_held") || !strings.Contains(page, "my status &lt;script&gt;") ||
		!strings.Contains(page, ">my next</textarea>") || !strings.Contains(page, "Nothing changed") {
		t.Fatalf("a hand-on while another holds: %d\n%s", st, page)
	}
	noRawScript(t, "refused hand-on", page)
	if e.frozen(room) != before {
		t.Fatal("a refused hand-on changed the room")
	}

	rescue := e.join("gemini:b2", "rescue2")
	e.submit(c, rescue, "join", url.Values{})
	e.deadHolder("claude:dead", rescue)
	body = e.page(c, "/rooms/"+rescue)
	if !strings.Contains(body, "turn failed (owner_gone)") {
		t.Fatalf("the takeover form does not say takeover is open:\n%s", body)
	}
	m := regexp.MustCompile(`name="turn" value="(\d+)"`).FindStringSubmatch(body)
	if r := e.submit(c, rescue, "takeover", url.Values{"turn": {m[1]}, "reason": {""}}); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.body, "reason must be non-empty") {
		t.Fatalf("a takeover without a reason: %d\n%s", r.status, r.body)
	}
	tk := e.landed(rescue, e.submit(c, rescue, "takeover", url.Values{"turn": {m[1]}, "reason": {"claude's session crashed"}}))
	if tk.Type != stick.EventTakeover || tk.From != me || tk.Reason != "claude's session crashed" || tk.To != "claude:dead" {
		t.Fatalf("the takeover: %+v", tk)
	}
	body = e.page(c, "/rooms/"+rescue)
	if !strings.Contains(body, "and hold the stick") || !strings.Contains(body, "You hold the stick: hand it on") {
		t.Fatalf("after the takeover the page does not say the reader holds the stick:\n%s", body)
	}
}

func TestRefusedFormsKeepInput(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "refusals")
	c := e.client()
	e.submit(c, room, "join", url.Values{})
	before := e.frozen(room)
	cases := []struct {
		name, action string
		v            url.Values
		status       int
		want         []string
	}{
		{"a 1 MB note", "notes", url.Values{"type": {"note"}, "text": {hostile + strings.Repeat("z", 1<<20)}}, http.StatusUnprocessableEntity,
			[]string{"invalid_argument", "text is 10", "&lt;script&gt;alert(1)", "zzzzzzzz</textarea>"}},
		{"no text", "notes", url.Values{"type": {"question"}, "text": {"   "}}, http.StatusUnprocessableEntity,
			[]string{"text must be non-empty", `<option value="question" selected>`}},
		{"a bad type", "notes", url.Values{"type": {"custom"}, "custom_type": {"shout"}, "text": {"hi"}}, http.StatusUnprocessableEntity,
			[]string{"message_type", `value="shout"`, ">hi</textarea>"}},
		{"a reply to nothing", "notes", url.Values{"type": {"answer"}, "reply_to": {"999"}, "text": {"an answer"}}, http.StatusUnprocessableEntity,
			[]string{"reply_to 999 is not an event", `value="999"`}},
		{"a reply to no number", "notes", url.Values{"type": {"answer"}, "reply_to": {"#3"}, "text": {"an answer"}}, http.StatusUnprocessableEntity,
			[]string{"In reply to must be the number", `value="#3"`}},
		{"a bad artifact", "handon", url.Values{"turn": {"0"}, "status": {"s"}, "next_action": {"n"}, "artifacts": {"a.go:1-2 edit\nb.go:9-3 edit"}},
			http.StatusUnprocessableEntity, []string{"Artifacts, line 2", "1 ≤ START ≤ END", "b.go:9-3 edit</textarea>"}},
		{"a role that is none", "handon", url.Values{"turn": {"0"}, "status": {"s"}, "next_action": {"n"}, "artifacts": {"a.go fix it"}},
			http.StatusUnprocessableEntity, []string{"Artifacts, line 1", "&#34;fix&#34; is no role"}},
		{"no next action", "handon", url.Values{"turn": {"0"}, "status": {"done it"}, "next_action": {""}}, http.StatusUnprocessableEntity,
			[]string{"invalid_handoff", "next_action must be non-empty", ">done it</textarea>"}},
		{"an unknown member", "handon", url.Values{"turn": {"0"}, "to": {"gemini:zz"}, "status": {"s"}, "next_action": {"n"}}, http.StatusConflict,
			[]string{"unknown_member", "gemini:zz is not a member"}},
		{"an old turn", "handon", url.Values{"turn": {"5"}, "status": {"s"}, "next_action": {"n"}}, http.StatusConflict,
			[]string{"turn_mismatch"}},
		{"a lost turn", "handon", url.Values{"status": {"s"}, "next_action": {"n"}}, http.StatusUnprocessableEntity,
			[]string{"lost the turn"}},
		{"an oversize status", "handon", url.Values{"turn": {"0"}, "status": {strings.Repeat("s", 70000)}, "next_action": {"n"}}, http.StatusUnprocessableEntity,
			[]string{"status is 70000 bytes"}},
	}
	for _, tc := range cases {
		r := e.submit(c, room, tc.action, tc.v)
		st, page := r.status, r.body
		if st != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, st, tc.status)
		}
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q", tc.name, clipped(page))
			}
		}
		if !strings.Contains(page, "Nothing changed") || !strings.Contains(page, `role="alert"`) {
			t.Errorf("%s: the refusal is not shown next to the form", tc.name)
		}
		noRawScript(t, tc.name, page)
		if e.frozen(room) != before {
			t.Fatalf("%s changed the room", tc.name)
		}
	}
}

// clipped is a page cut short for a failure message.
func clipped(s string) string {
	if len(s) > 4000 {
		return s[:2000] + " … " + s[len(s)-2000:]
	}
	return s
}

func TestViewerHasNoFormAndForgedPostsAreRefused(t *testing.T) {
	e := newEnv(t, false)
	room := e.join("codex:a1", "watched")
	e.claimAs("codex:a1", room)
	viewer := e.signIn("ana", stick.AccessViewer)
	body := e.page(viewer, "/rooms/"+room)
	for _, f := range regexp.MustCompile(`<form[^>]*method="post"[^>]*>`).FindAllString(body, -1) {
		if !strings.Contains(f, `action="/signout"`) {
			t.Errorf("a viewer sees a form that writes: %s", f)
		}
	}
	for _, bad := range []string{"Take part", "<textarea", "<select", "Answer #"} {
		if strings.Contains(body, bad) {
			t.Errorf("a viewer's page holds %q", bad)
		}
	}
	before := e.frozen(room)
	for action, v := range map[string]url.Values{
		"join":     {},
		"notes":    {"type": {"note"}, "text": {"forged"}},
		"handon":   {"turn": {"1"}, "status": {"s"}, "next_action": {"n"}},
		"takeover": {"turn": {"1"}, "reason": {"forged"}},
		"leave":    {},
	} {
		r := e.submit(viewer, room, action, v)
		st, page := r.status, r.body
		if st != http.StatusForbidden || !strings.Contains(page, "needs the role agent") {
			t.Errorf("a viewer's forged %s: %d\n%s", action, st, clipped(page))
		}
	}
	if e.frozen(room) != before {
		t.Fatal("a viewer's forged forms changed the room")
	}
	// An agent's token may write: its page has the forms.
	writer := e.signIn("bo", stick.AccessAgent)
	if body := e.page(writer, "/rooms/"+room); !strings.Contains(body, `id="note-form"`) || !strings.Contains(body, "human:bo@bo") {
		t.Fatal("an agent's token sees no form")
	}
	// A form without its CSRF value is refused before anything.
	if r := e.post(writer, "/rooms/"+room+"/notes", url.Values{"type": {"note"}, "text": {"no csrf"}}); r.status != http.StatusForbidden {
		t.Fatalf("a note without CSRF: %d", r.status)
	}
	if e.frozen(room) != before {
		t.Fatal("a form without CSRF changed the room")
	}
}

// A form sent to a room that closed after its page was made comes back
// with its text to copy and a clear reason, and sends nothing more.
func TestFormToARoomThatClosedKeepsInput(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "closing")
	c := e.client()
	e.submit(c, room, "join", url.Values{})
	m := csrfRe.FindStringSubmatch(e.page(c, "/rooms/"+room))
	if m == nil {
		t.Fatal("no CSRF token on the room's page")
	}
	if _, err := e.svc.Close(e.ctx, agent("codex:a1"), room, "done", ""); err != nil {
		t.Fatal(err)
	}
	before := e.frozen(room)
	r := e.post(c, "/rooms/"+room+"/notes", url.Values{"csrf": {m[1]}, "type": {"note"}, "text": {"the last word <b>kept</b>"}})
	if r.status != http.StatusConflict {
		t.Fatalf("a note to a closed room: %d, want 409", r.status)
	}
	for _, w := range []string{"room_closed", "This room closed while you wrote", "the last word &lt;b&gt;kept&lt;/b&gt;</textarea>",
		`type="submit" disabled>Post</button>`} {
		if !strings.Contains(r.body, w) {
			t.Errorf("the page lacks %q:\n%s", w, clipped(r.body))
		}
	}
	if strings.Contains(r.body, "Join the room") {
		t.Error("a closed room's page offers to join it")
	}
	if e.frozen(room) != before {
		t.Fatal("the refused note changed the room")
	}
	// Without a refused form, a closed room offers no form at all.
	if page := e.page(c, "/rooms/"+room); strings.Contains(page, `id="note-form"`) {
		t.Error("a closed room's page offers the note form")
	}
}

// A form sent after its reader's sign-in ended (the token revoked) sends
// nothing and says how to keep the text: Back, sign in elsewhere, send
// again; it is not a redirect, which would lose the text.
func TestFormAfterSignInEndedSaysHowToKeepText(t *testing.T) {
	e := newEnv(t, false)
	room := e.join("codex:a1", "revoked")
	c := e.signIn("ana", stick.AccessOperator)
	e.submit(c, room, "join", url.Values{})
	m := csrfRe.FindStringSubmatch(e.page(c, "/rooms/"+room))
	if m == nil {
		t.Fatal("no CSRF token on the room's page")
	}
	tokens, err := e.svc.ListTokens(e.ctx)
	if err != nil || len(tokens) != 1 {
		t.Fatalf("tokens: %v %v", tokens, err)
	}
	if _, err := e.svc.RevokeToken(e.ctx, tokens[0].ID); err != nil {
		t.Fatal(err)
	}
	before := e.frozen(room)
	r := e.post(c, "/rooms/"+room+"/notes", url.Values{"csrf": {m[1]}, "type": {"note"}, "text": {"written before the revocation"}})
	if r.status != http.StatusUnauthorized || r.loc != "" {
		t.Fatalf("a note after the token was revoked: %d %q, want 401 and no redirect", r.status, r.loc)
	}
	for _, w := range []string{"Your sign-in has ended", "Back button", "/signin"} {
		if !strings.Contains(r.body, w) {
			t.Errorf("the page lacks %q:\n%s", w, clipped(r.body))
		}
	}
	if e.frozen(room) != before {
		t.Fatal("the refused note changed the room")
	}
}
