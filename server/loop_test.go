package server_test

import (
	"bufio"
	"bytes"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	get  = http.MethodGet
	post = http.MethodPost
	put  = http.MethodPut
)

// polls waits until the hub has n long polls open (its metric
// stick_long_polls_open), so a test acts only once a waiter waits.
func (c *client) polls(n int) {
	c.h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, body := c.raw(get, "/metrics", nil)
		if st != http.StatusOK {
			c.h.t.Fatalf("GET /metrics: %d %s", st, body)
		}
		if metric(body, "stick_long_polls_open") == n {
			return
		}
		if time.Now().After(deadline) {
			c.h.t.Fatalf("the hub never had %d long polls open:\n%s", n, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// metric reads the value of an unlabelled metric of a Prometheus text
// exposition, -1 when it is not there.
func metric(body []byte, name string) int {
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return int(f)
			}
		}
	}
	return -1
}

func str(m map[string]any, key string) string { s, _ := m[key].(string); return s }
func num(m map[string]any, key string) int64  { f, _ := m[key].(float64); return int64(f) }
func list(m map[string]any, key string) []any { l, _ := m[key].([]any); return l }
func obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

// The whole loop over the JSON API, as two agents on other hosts take
// turns in a named room: join by name, wait, work (notes, the document
// with a conflict, an append, its history), release with a handoff that
// the other member's long poll receives, an events long poll woken by a
// note, search, export as markdown and JSON, and close with a conclusion.
func TestTurnLoop(t *testing.T) {
	t.Parallel()
	h := startHub(t, "", nil)
	ana, bob := h.client("", "ana-agent"), h.client("", "bob-agent")

	j := ana.ok(post, "/api/v1/rooms", map[string]any{"name": "review"})
	room := "/api/v1/rooms/" + str(j, "room_id")
	if !strings.HasPrefix(str(j, "agent_id"), "ana-agent@") || j["created"] != true || str(j, "room_name") != "review" {
		t.Fatalf("join: %v", j)
	}
	jb := bob.ok(post, "/api/v1/rooms", map[string]any{"name": "review"})
	if jb["room_id"] != j["room_id"] || jb["created"] != false || !strings.HasPrefix(str(jb, "agent_id"), "bob-agent@") {
		t.Fatalf("second join: %v", jb)
	}
	if rooms := list(ana.ok(get, "/api/v1/rooms?name=review", nil), "rooms"); len(rooms) != 1 || num(rooms[0].(map[string]any), "members") != 2 {
		t.Fatalf("list by name: %v", rooms)
	}

	w := ana.ok(post, room+"/wait", map[string]any{"max_wait_ms": 0})
	if str(w, "status") != "your_turn" || str(w, "agent_id") != str(j, "agent_id") {
		t.Fatalf("ana's wait: %v", w)
	}
	if nw := bob.ok(post, room+"/wait", map[string]any{"max_wait_ms": 0}); str(nw, "status") != "not_yet" {
		t.Fatalf("bob's first wait: %v", nw)
	}
	bobTurn := make(chan map[string]any, 1)
	go func() { bobTurn <- bob.ok(post, room+"/wait", map[string]any{"max_wait_ms": 60000}) }()
	ana.polls(1)

	lease := map[string]any{"lease_id": str(w, "lease_id"), "expected_turn_id": num(w, "turn_id")}
	if hb := ana.ok(post, room+"/heartbeat", lease); num(hb, "turn_id") != num(w, "turn_id") {
		t.Fatalf("heartbeat: %v", hb)
	}
	n := ana.ok(post, room+"/notes", map[string]any{"text": "the flaky test is parser_test.go:88", "message_type": "decision"})
	if ev := obj(n, "event"); str(ev, "message_type") != "decision" || n["duplicate"] != false {
		t.Fatalf("note: %v", n)
	}
	if d := ana.ok(put, room+"/doc", map[string]any{"content": "# Plan\n\nFix the parser.\n", "expected_version": 0}); num(d, "version") != 1 {
		t.Fatalf("doc put: %v", d)
	}
	e := ana.fails(http.StatusConflict, "version_conflict", put, room+"/doc", map[string]any{"content": "# Other\n", "expected_version": 0})
	if num(obj(e, "details"), "current_version") != 1 {
		t.Fatalf("version_conflict details: %v", e)
	}
	if d := ana.ok(post, room+"/doc/append", map[string]any{"text": "Use a fake clock.", "section": "Decisions"}); num(d, "version") != 2 {
		t.Fatalf("doc append: %v", d)
	}
	if vs := list(ana.ok(get, room+"/doc/history", nil), "versions"); len(vs) != 2 {
		t.Fatalf("history: %v", vs)
	}
	if d := ana.ok(get, room+"/doc", nil); !strings.Contains(str(d, "content"), "Use a fake clock.") || num(d, "version") != 2 {
		t.Fatalf("doc: %v", d)
	}
	if d := ana.ok(get, room+"/doc?version=1", nil); str(d, "content") != "# Plan\n\nFix the parser.\n" {
		t.Fatalf("doc version 1: %v", d)
	}

	handoff := map[string]any{"status": "Found the flaky test; the clock is the cause.", "next_action": "Replace time.Now in parser_test.go with the fake clock.",
		"artifacts": []any{map[string]any{"path": "parser_test.go", "lines": []int{80, 95}, "role": "edit"}}}
	rel := ana.ok(post, room+"/release", map[string]any{"lease_id": str(w, "lease_id"), "expected_turn_id": num(w, "turn_id"), "handoff": handoff})
	if str(rel, "room_state") != "reserved" || !strings.HasPrefix(str(rel, "reserved_for"), "bob-agent@") {
		t.Fatalf("release: %v", rel)
	}
	bt := <-bobTurn
	if str(bt, "status") != "your_turn" || str(obj(bt, "handoff"), "status") != handoff["status"] || str(bt, "from_agent_id") != str(j, "agent_id") {
		t.Fatalf("bob's long poll: %v", bt)
	}

	st := ana.ok(get, room, nil)
	if !strings.HasPrefix(str(st, "owner"), "bob-agent@") {
		t.Fatalf("state: %v", st)
	}
	cursor := num(st, "last_event_seq")
	woke := make(chan map[string]any, 1)
	go func() {
		woke <- ana.ok(get, room+"/events?after="+strconv.FormatInt(cursor, 10)+"&wait_ms=60000", nil)
	}()
	ana.polls(1)
	bob.ok(post, room+"/notes", map[string]any{"text": "replacing the clock now"})
	ev := <-woke
	if evs := list(ev, "events"); len(evs) != 1 || str(evs[0].(map[string]any), "text") != "replacing the clock now" || ev["closed"] != false {
		t.Fatalf("events long poll: %v", ev)
	}
	if again := ana.ok(get, room+"/events?after="+strconv.FormatInt(num(ev, "next_cursor"), 10), nil); len(list(again, "events")) != 0 {
		t.Fatalf("events after the cursor: %v", again)
	}

	if hits := list(ana.ok(get, "/api/v1/search?q=flaky", nil), "hits"); len(hits) == 0 || str(hits[0].(map[string]any), "room_id") != str(j, "room_id") {
		t.Fatalf("search: %v", hits)
	}
	md := ana.do(get, room+"/export?format=md", nil)
	if md.status != http.StatusOK || !strings.HasPrefix(md.header.Get("Content-Type"), "text/markdown") ||
		!strings.Contains(string(md.body), "Replace time.Now in parser_test.go") || !strings.Contains(string(md.body), "replacing the clock now") {
		t.Fatalf("export md: %d %s\n%s", md.status, md.header.Get("Content-Type"), md.body)
	}
	if js := ana.ok(get, room+"/export?format=json", nil); len(list(js, "events")) < 5 || str(obj(js, "room"), "room_id") != str(j, "room_id") {
		t.Fatalf("export json: %v", js)
	}

	cl := bob.ok(post, room+"/close", map[string]any{"reason": "done", "conclusion": "The parser test uses the fake clock now."})
	if str(cl, "room_id") != str(j, "room_id") || num(cl, "doc_version") == 0 {
		t.Fatalf("close: %v", cl)
	}
	if d := ana.ok(get, room+"/doc", nil); !strings.Contains(str(d, "content"), "## Conclusion") {
		t.Fatalf("doc after close: %v", d)
	}
	end := ana.ok(get, room+"/events?after="+strconv.FormatInt(num(ev, "next_cursor"), 10)+"&wait_ms=60000", nil)
	if end["closed"] != true || len(list(end, "events")) == 0 {
		t.Fatalf("events after close: %v", end)
	}
	if done := ana.ok(get, room+"/events?after="+strconv.FormatInt(num(end, "next_cursor"), 10)+"&wait_ms=60000", nil); done["closed"] != true || len(list(done, "events")) != 0 {
		t.Fatalf("events of a closed room at its end: %v", done)
	}
	if w := ana.ok(post, room+"/wait", map[string]any{"max_wait_ms": 1000}); str(w, "status") != "closed" {
		t.Fatalf("wait in a closed room: %v", w)
	}
}

// curl, the client the API is for, drives a turn: the answers it prints
// are JSON, the identity comes from the client header.
func TestCurl(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	h := startHub(t, "", nil)
	c := h.client("", "")
	curl := func(args ...string) map[string]any {
		t.Helper()
		out, err := exec.Command("curl", append([]string{"-sS", "--fail-with-body"}, args...)...).Output()
		if err != nil {
			t.Fatalf("curl %v: %v\n%s", args, err, out)
		}
		return answer{status: 200, body: out}.json(t)
	}
	j := curl("-X", "POST", h.url+"/api/v1/rooms", "-H", "X-Stick-Client: ci-runner", "-d", `{"name":"nightly"}`)
	if !strings.HasPrefix(str(j, "agent_id"), "ci-runner@") {
		t.Fatalf("join: %v", j)
	}
	room := h.url + "/api/v1/rooms/" + str(j, "room_id")
	w := curl("-X", "POST", room+"/wait", "-H", "X-Stick-Client: ci-runner", "-d", `{"max_wait_ms":0}`)
	if str(w, "status") != "your_turn" {
		t.Fatalf("wait: %v", w)
	}
	curl("-X", "POST", room+"/notes", "-H", "X-Stick-Client: ci-runner", "-d", `{"text":"nightly build is green"}`)
	curl("-X", "POST", room+"/release", "-H", "X-Stick-Client: ci-runner", "-d",
		`{"lease_id":"`+str(w, "lease_id")+`","expected_turn_id":`+strconv.FormatInt(num(w, "turn_id"), 10)+
			`,"handoff":{"status":"Nightly build green.","next_action":"Nothing; wait for the next run."}}`)
	// Without the header the client is "curl": another member, who has
	// not joined (and curl's plain -d is read as JSON all the same).
	out, err := exec.Command("curl", "-sS", "-X", "POST", room+"/wait", "-d", `{"max_wait_ms":0}`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if e := obj((answer{status: 409, body: out}).json(t), "error"); str(e, "code") != "unknown_member" || !strings.HasPrefix(str(obj(e, "details"), "agent_id"), "curl@") {
		t.Fatalf("a wait as another client: %v", e)
	}
	if evs := list(c.ok(get, strings.TrimPrefix(room, h.url)+"/events", nil), "events"); len(evs) < 4 {
		t.Fatalf("events: %v", evs)
	}
}
