package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/httpcode"
	"github.com/stickhq/stick/stick"
)

// The one table of statuses: every code of package stick and of the hub
// has the status the API documents.
func TestStatusTable(t *testing.T) {
	want := map[stick.Code]int{
		stick.CodeInvalidArgument: 400, stick.CodeInvalidHandoff: 400,
		stick.CodeUnauthenticated: 401, stick.CodeForbidden: 403,
		stick.CodeRoomNotFound: 404, CodeNotFound: 404, CodeMethodNotAllowed: 405,
		stick.CodeStaleLease: 409, stick.CodeTurnMismatch: 409, stick.CodeVersionConflict: 409, stick.CodeStickHeld: 409,
		stick.CodeAgentIDInUse: 409, stick.CodeRoomClosed: 409, stick.CodeUnknownMember: 409,
		stick.CodeTakeoverNotAvailable: 409, stick.CodeTakeoverIneligible: 409,
		CodeTooLarge: 413, CodeIdempotencyKeyReused: 422, CodeRateLimited: 429,
		stick.CodeInternal: 500, stick.CodeDBSchemaMismatch: 500, stick.CodeUnsupportedFilesystem: 500,
		stick.CodeDataDir: 500, stick.CodeDBCorrupt: 500, stick.CodeHarness: 500,
		stick.CodeDBBusy: 503, stick.CodeDBUnavailable: 503, stick.CodeSearchUnavailable: 503, stick.CodeCanceled: 503, CodeShuttingDown: 503,
	}
	for code, st := range want {
		if got := statusOf(code); got != st {
			t.Errorf("%s: %d, want %d", code, got, st)
		}
	}
	if len(httpcode.Codes()) != len(want) {
		t.Errorf("the table has %d codes, the test %d", len(httpcode.Codes()), len(want))
	}
	if statusOf("a_code_of_tomorrow") != 400 {
		t.Error("an unknown code is not a client error")
	}
}

// Errors are written as the API says: the body's fields, Retry-After on
// 503 and 429, WWW-Authenticate on 401, and a 500 without the internals.
func TestWriteError(t *testing.T) {
	s := &Server{}
	s.public.Store(&public{url: "https://hub.example"})
	for _, tc := range []struct {
		err    error
		status int
		header string
		value  string
	}{
		{stick.Errorf(stick.CodeDBBusy, "busy"), 503, "Retry-After", "1"},
		{stick.Errorf(stick.CodeDBUnavailable, "lost the connection"), 503, "Retry-After", "1"},
		{stick.Errorf(CodeRateLimited, "slow down").With("retry_after_s", 7), 429, "Retry-After", "7"},
		{stick.Errorf(stick.CodeUnauthenticated, "who"), 401, "WWW-Authenticate", `Bearer resource_metadata="https://hub.example/.well-known/oauth-protected-resource"`},
		{stick.Errorf(stick.CodeStaleLease, "lost").With("current_turn_id", 3), 409, "", ""},
	} {
		w := httptest.NewRecorder()
		s.writeError(w, httptest.NewRequest(http.MethodGet, "/", nil), tc.err)
		if w.Code != tc.status || tc.header != "" && w.Header().Get(tc.header) != tc.value {
			t.Errorf("%v: %d %v", tc.err, w.Code, w.Header())
		}
		var body errorBody
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error.Code != stick.ErrorCode(tc.err) || body.Error.Message == "" {
			t.Errorf("%v: body %s", tc.err, w.Body)
		}
	}
	w := httptest.NewRecorder()
	s.writeError(w, httptest.NewRequest(http.MethodGet, "/", nil), errors.New("open /var/lib/secret/rooms.sqlite: permission denied"))
	if w.Code != 500 || strings.Contains(w.Body.String(), "/var/lib") || !strings.Contains(w.Body.String(), `"internal"`) {
		t.Errorf("a 500 shows its internals: %s", w.Body)
	}
}

// The rate limit: a burst of failures, then one per failEvery, per
// address.
func TestLimiter(t *testing.T) {
	now := time.Unix(0, 0)
	l := newLimiter(func() time.Time { return now })
	for range failBurst {
		if l.wait("a") != 0 {
			t.Fatal("limited within the burst")
		}
		l.fail("a")
	}
	if w := l.wait("a"); w <= 0 || w > failEvery {
		t.Fatalf("after the burst: wait %v", w)
	}
	if l.wait("b") != 0 {
		t.Fatal("another address is limited")
	}
	now = now.Add(failEvery)
	if l.wait("a") != 0 {
		t.Fatal("still limited after a token came back")
	}
	l.fail("a")
	if l.wait("a") == 0 {
		t.Fatal("not limited after spending it")
	}
}

// The idempotency cache keeps answers below 500 for replayTTL and at most
// maxReplays of them; a 5xx lets the retry run.
func TestReplays(t *testing.T) {
	now := time.Unix(0, 0)
	rs := newReplays(func() time.Time { return now })
	ctx := context.Background()
	k := replayKey{token: "t", client: "c", key: "k"}
	rp, first, err := rs.begin(ctx, nil, k, "POST", "/p", []byte("b"))
	if err != nil || !first {
		t.Fatal(first, err)
	}
	rs.finish(ctx, nil, rp, kept{Status: 503, ContentType: "application/json", Body: []byte("busy")})
	rp, first, _ = rs.begin(ctx, nil, k, "POST", "/p", []byte("b"))
	if !first {
		t.Fatal("a 503 was replayed")
	}
	rs.finish(ctx, nil, rp, kept{Status: 200, ContentType: "application/json", Body: []byte("done")})
	if got, first, _ := rs.begin(ctx, nil, k, "POST", "/p", []byte("b")); first || string(got.Value().(kept).Body) != "done" {
		t.Fatal("a 200 was not replayed")
	}
	if _, _, err := rs.begin(ctx, nil, k, "POST", "/p", []byte("other")); stick.ErrorCode(err) != CodeIdempotencyKeyReused {
		t.Fatalf("another body: %v", err)
	}
	now = now.Add(replayTTL + time.Second)
	if _, first, _ := rs.begin(ctx, nil, k, "POST", "/p", []byte("other")); !first {
		t.Fatal("an answer outlived replayTTL")
	}
	for i := range maxReplays + 10 {
		rp, _, _ := rs.begin(ctx, nil, replayKey{key: strings.Repeat("x", i+1)}, "POST", "/p", nil)
		rs.finish(ctx, nil, rp, kept{Status: 200, ContentType: "", Body: nil})
	}
	if rs.cache.Len() > maxReplays {
		t.Fatalf("%d answers kept", rs.cache.Len())
	}
}

func TestLoopbackNames(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "app.localhost": true, "127.0.0.1": true, "127.9.9.9": true, "::1": true,
		"evil.example": false, "localhost.evil.example": false, "10.0.0.1": false, "": false,
	} {
		if loopbackName(host) != want {
			t.Errorf("%q: %v", host, !want)
		}
	}
	for raw, want := range map[string]string{
		"http://127.0.0.1:7420": "http://127.0.0.1:7420", "https://Hub.Example:443/x": "https://hub.example",
		"http://[::1]:80": "http://[::1]", "https://hub.example:8443": "https://hub.example:8443",
	} {
		u, _ := url.Parse(raw)
		if got := originOf(u); got != want {
			t.Errorf("origin of %s: %s, want %s", raw, got, want)
		}
	}
}

// Whatever the body, decoding answers a coded invalid_argument naming a
// field, or succeeds; it never panics.
func FuzzDecodeBody(f *testing.F) {
	for _, s := range []string{`{}`, `{"lease_id":"l","expected_turn_id":1,"handoff":{"status":"s","next_action":"n","artifacts":[{"path":"a","lines":[1,2],"role":"edit"}]}}`,
		`{"agent_id":"x"}`, `[]`, `{"handoff":null}`, `{"expected_turn_id":1.5}`, "{\"a\":\"\xff\"}", `{"lease_id":"a"}{}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in passIn
		err := decodeBody(body, &in)
		if err == nil {
			return
		}
		e := stick.AsError(err)
		if e.Code != stick.CodeInvalidArgument || e.Details["field"] == nil || e.Message == "" {
			t.Fatalf("%q: %v %v", body, e.Code, e.Details)
		}
	})
}

// Answers are JSON for terminals and scripts, never HTML: '<', '>' and '&'
// stay as they are, and the body is one line.
func TestWriteJSONKeepsAngleBrackets(t *testing.T) {
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusUnauthorized, map[string]string{"hint": "send 'Authorization: Bearer <token>' & retry"})
	body := rec.Body.String()
	if body != `{"hint":"send 'Authorization: Bearer <token>' & retry"}`+"\n" {
		t.Fatalf("body %q", body)
	}
	if rec.Header().Get("Content-Length") != strconv.Itoa(len(body)) {
		t.Fatalf("Content-Length %q for a body of %d bytes", rec.Header().Get("Content-Length"), len(body))
	}
}

// A curl user reads the endpoints to call where the library's messages
// name MCP tools; other words stay.
func TestAPIWords(t *testing.T) {
	for in, want := range map[string]string{
		"stop working as holder and read the room with get_room_state": "stop working as holder and read the room with GET /api/v1/rooms/{room_id}",
		"call wait_for_turn again, then release_stick":                 "call POST /api/v1/rooms/{room_id}/wait again, then POST /api/v1/rooms/{room_id}/release",
		"room_id must be non-empty; a heartbeat or sync is not needed": "room_id must be non-empty; a heartbeat or sync is not needed",
	} {
		if got := apiWords(in); got != want {
			t.Errorf("apiWords(%q) = %q, want %q", in, got, want)
		}
	}
}
