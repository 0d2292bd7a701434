package web_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// ask posts a note as id and returns its event.
func (e *env) ask(id, room string, n stick.Note) stick.Event {
	e.t.Helper()
	res, err := e.svc.Post(e.ctx, agent(id), room, n)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Event
}

// item is the feed's item of event seq in a page.
func item(t *testing.T, body string, seq int64) string {
	t.Helper()
	start := strings.Index(body, fmt.Sprintf(`id="e%d"`, seq))
	if start < 0 {
		t.Fatalf("the page has no event #%d", seq)
	}
	end := strings.Index(body[start:], "</li>\n")
	return body[start : start+end]
}

func TestQuestionsWithTheirAnswers(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "qa")
	e.join("claude:b2", "qa")
	q := e.ask("codex:a1", room, stick.Note{Text: "keep the old flag? " + hostile, Type: stick.NoteQuestion})
	open := e.ask("codex:a1", room, stick.Note{Text: "which Go version?", Type: stick.NoteQuestion})
	e.note("claude:b2", room, "unrelated", "")
	a := e.ask("claude:b2", room, stick.Note{Text: "yes, until v2", Type: stick.NoteAnswer, ReplyTo: q.Seq})
	reply := e.ask("codex:a1", room, stick.Note{Text: "thanks", ReplyTo: a.Seq})
	body := e.page(e.client(), "/rooms/"+room)
	noRawScript(t, "qa", body)

	question := item(t, body, q.Seq)
	for _, want := range []string{"question", "answered", fmt.Sprintf(`href="#e%d">#%d</a>`, a.Seq, a.Seq),
		fmt.Sprintf(`href="?answer=%d#note-form"`, q.Seq)} {
		if !strings.Contains(question, want) {
			t.Errorf("the question lacks %q:\n%s", want, question)
		}
	}
	if strings.Contains(question, "badge-open") {
		t.Error("an answered question is marked open")
	}
	if it := item(t, body, open.Seq); !strings.Contains(it, `badge-open">open</span>`) {
		t.Errorf("an unanswered question is not marked open:\n%s", it)
	}
	answer := item(t, body, a.Seq)
	for _, want := range []string{fmt.Sprintf(`data-answers="%d"`, q.Seq), "Answers", fmt.Sprintf(`href="#e%d">#%d</a>`, q.Seq, q.Seq),
		"keep the old flag? &lt;script&gt;", "codex:a1"} {
		if !strings.Contains(answer, want) {
			t.Errorf("the answer lacks %q:\n%s", want, answer)
		}
	}
	if it := item(t, body, reply.Seq); !strings.Contains(it, "In reply to") || !strings.Contains(it, "yes, until v2") || strings.Contains(it, "data-answers") {
		t.Errorf("a reply to the answer:\n%s", it)
	}
	// The feed keeps the log's order.
	if strings.Index(body, fmt.Sprintf(`id="e%d"`, q.Seq)) > strings.Index(body, fmt.Sprintf(`id="e%d"`, a.Seq)) {
		t.Error("the answer comes before its question")
	}
	// The answer link fills the note form in.
	form := e.page(e.client(), fmt.Sprintf("/rooms/%s?answer=%d", room, q.Seq))
	if !strings.Contains(form, `<option value="answer" selected>`) || !strings.Contains(form, fmt.Sprintf(`name="reply_to" type="text" inputmode="numeric" value="%d"`, q.Seq)) {
		t.Error("?answer does not fill the note form in as an answer")
	}
}

// An answer on the newest page to a question on an older one quotes it,
// read from the log; the question, on its older page, is not said open.
func TestAnswerToAnOlderQuestion(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "long-qa")
	q := e.ask("codex:a1", room, stick.Note{Text: "the very first question", Type: stick.NoteQuestion})
	for i := range 120 {
		e.note("codex:a1", room, fmt.Sprintf("filler %d", i), "")
	}
	e.ask("codex:a1", room, stick.Note{Text: "late answer", Type: stick.NoteAnswer, ReplyTo: q.Seq})
	c := e.client()
	body := e.page(c, "/rooms/"+room)
	if !strings.Contains(body, "the very first question") || strings.Contains(body, fmt.Sprintf(`id="e%d"`, q.Seq)) {
		t.Fatal("the answer does not quote its question from an older page")
	}
	m := regexp.MustCompile(`\?before=(\d+)"`).FindStringSubmatch(body)
	older := e.page(c, "/rooms/"+room+"?before="+m[1])
	if it := item(t, older, q.Seq); strings.Contains(it, "badge-open") {
		t.Errorf("a question on an older page is said open:\n%s", it)
	}
}
