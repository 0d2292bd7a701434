package server_test

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// A write sent again with its Idempotency-Key (its answer was lost) gets
// the first answer, marked Idempotent-Replayed, and changes nothing: a
// note is posted once, a release that ended the turn answers as it did
// instead of stale_lease. The same key with another request is 422; a
// key is the client's own, so another member's same key is a new write.
func TestIdempotencyReplay(t *testing.T) {
	t.Parallel()
	h := startHub(t, "", nil)
	ana, bob := h.client("", "ana"), h.client("", "bob")
	j := ana.ok(post, "/api/v1/rooms", map[string]any{"name": "retries"}, "Idempotency-Key", "join-1")
	if again := ana.do(post, "/api/v1/rooms", map[string]any{"name": "retries"}, "Idempotency-Key", "join-1"); again.header.Get("Idempotent-Replayed") != "true" || again.json(t)["created"] != true {
		t.Fatalf("a replayed join: %v %s", again.header, again.body)
	}
	bob.ok(post, "/api/v1/rooms", map[string]any{"name": "retries"})
	room := "/api/v1/rooms/" + str(j, "room_id")
	w := ana.ok(post, room+"/wait", map[string]any{"max_wait_ms": 0})

	note := map[string]any{"text": "posted once"}
	first := ana.do(post, room+"/notes", note, "Idempotency-Key", "note-1")
	// Retries race each other and the first: one note all the same.
	var wg sync.WaitGroup
	answers := make([]answer, 4)
	for i := range answers {
		wg.Go(func() { answers[i] = ana.do(post, room+"/notes", note, "Idempotency-Key", "note-1") })
	}
	wg.Wait()
	for _, a := range answers {
		if a.status != http.StatusOK || !bytes.Equal(a.body, first.body) || a.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("a retried note: %d %v %s, first %s", a.status, a.header, a.body, first.body)
		}
	}
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Fatal("the first answer is marked replayed")
	}
	notes := 0
	for _, e := range list(ana.ok(get, room+"/events", nil), "events") {
		if str(e.(map[string]any), "text") == "posted once" {
			notes++
		}
	}
	if notes != 1 {
		t.Fatalf("%d notes posted", notes)
	}

	ana.fails(http.StatusUnprocessableEntity, "idempotency_key_reused", post, room+"/notes", map[string]any{"text": "another note"}, "Idempotency-Key", "note-1")
	ana.fails(http.StatusUnprocessableEntity, "idempotency_key_reused", post, room+"/doc/append", map[string]any{"text": "posted once"}, "Idempotency-Key", "note-1")
	if n := bob.ok(post, room+"/notes", note, "Idempotency-Key", "note-1"); str(obj(n, "event"), "from_agent_id") == str(j, "agent_id") {
		t.Fatalf("bob's key answered with ana's note: %v", n)
	}

	release := map[string]any{"lease_id": str(w, "lease_id"), "expected_turn_id": num(w, "turn_id"),
		"handoff": map[string]any{"status": "Done with the retries.", "next_action": "Review them."}}
	r1 := ana.do(post, room+"/release", release, "Idempotency-Key", "release-1")
	r2 := ana.do(post, room+"/release", release, "Idempotency-Key", "release-1")
	if r1.status != http.StatusOK || r2.status != http.StatusOK || !bytes.Equal(r1.body, r2.body) {
		t.Fatalf("a retried release: %d %s, then %d %s", r1.status, r1.body, r2.status, r2.body)
	}
	ana.fails(http.StatusConflict, "stale_lease", post, room+"/release", release)
	ana.fails(http.StatusBadRequest, "invalid_argument", post, room+"/notes", note, "Idempotency-Key", strings.Repeat("k", 256))
}

// The hub is SIGKILLed after it answered a release and a note whose
// answers the client lost, and started again on the same database: the
// writes retried with their Idempotency-Keys get the first answers,
// marked Idempotent-Replayed, and change nothing (one note, one release,
// the turn not ended twice); the same key with another body is refused.
func TestIdempotencyAcrossHubRestart(t *testing.T) {
	t.Parallel()
	h := startHub(t, "", nil)
	ana, bob := h.client("", "ana"), h.client("", "bob")
	j := ana.ok(post, "/api/v1/rooms", map[string]any{"name": "restarts"})
	bob.ok(post, "/api/v1/rooms", map[string]any{"name": "restarts"})
	room := "/api/v1/rooms/" + str(j, "room_id")
	w := ana.ok(post, room+"/wait", map[string]any{"max_wait_ms": 0})
	note := map[string]any{"text": "posted once"}
	n1 := ana.do(post, room+"/notes", note, "Idempotency-Key", "note-1")
	release := map[string]any{"lease_id": str(w, "lease_id"), "expected_turn_id": num(w, "turn_id"),
		"handoff": map[string]any{"status": "Released before the crash.", "next_action": "Carry on."}}
	r1 := ana.do(post, room+"/release", release, "Idempotency-Key", "release-1")
	if n1.status != http.StatusOK || r1.status != http.StatusOK {
		t.Fatalf("before the crash: note %d %s, release %d %s", n1.status, n1.body, r1.status, r1.body)
	}
	if err := h.proc.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = h.proc.Wait()

	h2 := startHub(t, h.data, nil)
	ana2 := h2.client("", "ana")
	for _, tc := range []struct {
		path  string
		body  any
		key   string
		first answer
	}{{room + "/notes", note, "note-1", n1}, {room + "/release", release, "release-1", r1}} {
		again := ana2.do(post, tc.path, tc.body, "Idempotency-Key", tc.key)
		if again.status != tc.first.status || !bytes.Equal(again.body, tc.first.body) || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("%s retried after the restart: %d %v %s; first %d %s", tc.path, again.status, again.header, again.body, tc.first.status, tc.first.body)
		}
	}
	ana2.fails(http.StatusUnprocessableEntity, "idempotency_key_reused", post, room+"/notes", map[string]any{"text": "another"}, "Idempotency-Key", "note-1")
	ana2.fails(http.StatusConflict, "stale_lease", post, room+"/release", release)
	notes, releases := 0, 0
	for _, e := range list(ana2.ok(get, room+"/events", nil), "events") {
		ev := e.(map[string]any)
		switch {
		case str(ev, "text") == "posted once":
			notes++
		case str(ev, "event_type") == "release" || str(ev, "event_type") == "pass":
			releases++
		}
	}
	if notes != 1 || releases != 1 {
		t.Fatalf("after the retries: %d notes, %d releases; want one of each", notes, releases)
	}
	if st := ana2.ok(get, room, nil); num(st, "turn_id") != num(w, "turn_id") {
		t.Fatalf("the turn moved on: %v", st)
	}
}
