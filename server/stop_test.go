package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SIGTERM stops the hub gracefully: the long polls in progress (a wait
// for the stick, a wait for events, a wait for members, a wait for a
// wake) answer at once with their usual
// "nothing yet" and the header that says the hub is stopping, and the
// hub exits 0 having said so.
func TestGracefulStop(t *testing.T) {
	t.Parallel()
	h := startHub(t, "", nil)
	ana, bob := h.client("", "ana"), h.client("", "bob")
	j := ana.ok(post, "/api/v1/rooms", map[string]any{"name": "stop"})
	bob.ok(post, "/api/v1/rooms", map[string]any{"name": "stop"})
	room := "/api/v1/rooms/" + str(j, "room_id")
	if w := ana.ok(post, room+"/wait", map[string]any{"max_wait_ms": 0}); str(w, "status") != "your_turn" {
		t.Fatalf("wait: %v", w)
	}
	last := num(ana.ok(get, room, nil), "last_event_seq")
	waited, followed, joined, woken := make(chan answer, 1), make(chan answer, 1), make(chan answer, 1), make(chan answer, 1)
	go func() { waited <- bob.do(post, room+"/wait", map[string]any{"max_wait_ms": 600000}) }()
	go func() {
		followed <- bob.do(get, room+"/events?wait_ms=600000&after="+itoa(last), nil)
	}()
	go func() { joined <- bob.do(get, room+"/members?min=3&wait_ms=600000", nil) }()
	go func() { woken <- bob.do(post, room+"/wake/await", map[string]any{"wait_ms": 600000}) }()
	ana.polls(4)
	start := time.Now()
	code := h.stop()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the hub took %v to stop with four long polls open", took)
	}
	for name, ch := range map[string]chan answer{"wait": waited, "events": followed, "members": joined, "wake": woken} {
		a := <-ch
		if a.status != http.StatusOK || a.header.Get("X-Stick-Shutting-Down") != "true" {
			t.Fatalf("%s: %d %v %s", name, a.status, a.header, a.body)
		}
		m := a.json(t)
		if name == "wait" && str(m, "status") != "not_yet" || name == "events" && len(list(m, "events")) != 0 ||
			name == "members" && (m["reached"] != false || len(list(m, "members")) != 2) || name == "wake" && m["due"] != false {
			t.Fatalf("%s: %v", name, m)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, h.proc.Stderr())
	}
	var out []string
	for {
		line, err := h.proc.ReadLine(time.Second)
		if err != nil {
			break
		}
		out = append(out, line)
	}
	if !strings.Contains(strings.Join(out, "\n"), "stick serve: stopped") {
		t.Fatalf("stdout: %q", out)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
