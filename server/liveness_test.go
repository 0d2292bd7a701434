package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/liveness"
)

const session = "4242.1767000000123.0123456789abcdef"

// stream is a liveness stream opened by hand, as a proxy opens one.
type stream struct {
	t     *testing.T
	resp  *http.Response
	w     *io.PipeWriter
	lines *bufio.Scanner
}

// openStream opens a liveness stream of session with token as client.
func openStream(t *testing.T, h *hub, token, client, session string) (*stream, *http.Response) {
	t.Helper()
	body, w := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, h.url+liveness.Path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Stick-Client", client)
	if session != "" {
		req.Header.Set(identity.SessionHeader, session)
	}
	go func() { _ = json.NewEncoder(w).Encode(liveness.Message{Type: liveness.Hello}) }()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		w.Close() // as a proxy does: a refused stream sends nothing more
		return nil, resp
	}
	return &stream{t: t, resp: resp, w: w, lines: bufio.NewScanner(resp.Body)}, resp
}

// next returns the hub's next message other than a ping.
func (s *stream) next() liveness.Message {
	s.t.Helper()
	for s.lines.Scan() {
		var m liveness.Message
		if err := json.Unmarshal(s.lines.Bytes(), &m); err != nil {
			s.t.Fatalf("the hub sent %q: %v", s.lines.Text(), err)
		}
		if m.Type != liveness.Ping {
			return m
		}
	}
	return liveness.Message{Type: "end"}
}

func (s *stream) send(m liveness.Message) {
	s.t.Helper()
	if err := json.NewEncoder(s.w).Encode(m); err != nil {
		s.t.Fatal(err)
	}
}

// A liveness stream is a member's, named by its token, client and session:
// the hub says so when it is up; one without a session, or of a session
// whose harness exited, is refused before streaming; GET is not a method
// of it; and a stopping hub ends it with a shutdown, without waiting for
// the end of a body its proxy has not closed (nor those of the refused).
func TestLivenessStream(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	c := h.client(token, "claude-code")
	if _, resp := openStream(t, h, token, "claude-code", ""); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a stream without a session: %d", resp.StatusCode)
	}
	c.fails(http.StatusMethodNotAllowed, "method_not_allowed", get, liveness.Path, nil)

	st, resp := openStream(t, h, token, "claude-code", session)
	if st == nil {
		t.Fatalf("the stream of a session was refused: %d", resp.StatusCode)
	}
	if m := st.next(); m.Type != liveness.Ready || !strings.HasPrefix(m.AgentID, "claude-code:") || !strings.HasSuffix(m.AgentID, "@alex-s-team") {
		t.Fatalf("the hub's first message: %+v", m)
	}
	st.send(liveness.Message{Type: liveness.Gone})
	if m := st.next(); m.Type != "end" {
		t.Fatalf("the hub went on after gone: %+v", m)
	}
	if _, resp := openStream(t, h, token, "claude-code", session); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a stream of a session whose harness exited: %d", resp.StatusCode)
	}

	other, _ := openStream(t, h, token, "codex", "4243.1767000000123.0123456789abcdef")
	if m := other.next(); m.Type != liveness.Ready {
		t.Fatalf("another session: %+v", m)
	}
	done := make(chan liveness.Message, 1)
	go func() { done <- other.next() }()
	stopping := time.Now()
	if code := h.stop(); code != 0 {
		t.Fatalf("the hub exited %d", code)
	}
	select {
	case m := <-done:
		if m.Type != liveness.Shutdown {
			t.Fatalf("a stopping hub's last message: %+v", m)
		}
		if took := time.Since(stopping); took > 5*time.Second {
			t.Fatalf("the streams held the hub's stop up for %v", took)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stream outlived the hub")
	}
}
