package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/liveness"
)

// streamHub is the hub's side of liveness streams, as package server
// serves it: ready, then the proxy's lines until gone, when it ends the
// stream. heard closes when it read a gone; streams counts the streams.
type streamHub struct {
	heard    chan struct{}
	once     sync.Once
	mu       sync.Mutex
	streams  int
	refusing bool
}

func (h *streamHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != liveness.Path {
		http.NotFound(w, r)
		return
	}
	h.mu.Lock()
	h.streams++
	refusing := h.refusing
	h.mu.Unlock()
	if refusing {
		// A session whose harness exited is refused, as package server does.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"code":"invalid_argument","message":"this session ended: its proxy said its harness exited"}}`)
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.EnableFullDuplex()
	w.Header().Set("Content-Type", liveness.ContentType)
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(liveness.Message{Type: liveness.Ready, AgentID: "codex:abc@team"})
	_ = rc.Flush()
	lines := bufio.NewScanner(r.Body)
	for lines.Scan() {
		var m liveness.Message
		if json.Unmarshal(lines.Bytes(), &m) == nil && m.Type == liveness.Gone {
			h.once.Do(func() { close(h.heard) })
			return
		}
	}
}

// holdBack is a transport that holds a liveness stream's gone back for a
// while after the proxy wrote it, as a busy machine may between the
// proxy's write and the moment the bytes leave it.
type holdBack struct{ hold time.Duration }

func (b holdBack) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == liveness.Path && r.Body != nil {
		r.Body = &slowGone{ReadCloser: r.Body, hold: b.hold}
	}
	return http.DefaultTransport.RoundTrip(r)
}

type slowGone struct {
	io.ReadCloser
	hold time.Duration
}

func (s *slowGone) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if bytes.Contains(p[:n], []byte(`"`+liveness.Gone+`"`)) {
		time.Sleep(s.hold)
	}
	return n, err
}

// Telling the hub that the harness exited returns only once the hub has
// heard it (it ends the stream then), not once the proxy wrote it: the
// proxy exits right after, and words still on their way would be lost,
// leaving the hub to judge the member by its grace instead of at once.
func TestSayGoneWaitsForTheHub(t *testing.T) {
	h := &streamHub{heard: make(chan struct{})}
	srv := httptest.NewServer(h)
	defer srv.Close()
	p, err := New(Config{Server: srv.URL, Transport: holdBack{hold: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	held := make(chan struct{})
	go func() { defer close(held); p.live.hold(ctx) }()
	if err := p.live.awaitReady(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	p.live.sayGone(5 * time.Second)
	select {
	case <-h.heard:
	default:
		t.Error("sayGone returned before the hub heard the harness exited")
	}
	cancel() // as the proxy's Run ends once it said so
	<-held
	select {
	case <-h.heard:
	case <-time.After(time.Second):
		t.Error("the hub never heard the harness exited")
	}
}

// A gone whose stream broke before the hub ended it is said again on a
// new stream; a hub that refuses the session because its harness exited
// has heard it already.
func TestSayGoneAgainOnANewStream(t *testing.T) {
	h := &streamHub{heard: make(chan struct{}), refusing: true}
	srv := httptest.NewServer(h)
	defer srv.Close()
	p, err := New(Config{Server: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := p.live
	s.readyOnce.Do(func() { close(s.ready) })
	done := make(chan struct{})
	go func() { defer close(done); s.hold(ctx) }()
	start := time.Now()
	s.sayGone(5 * time.Second)
	if !s.saidGone() || time.Since(start) > 2*time.Second {
		t.Fatalf("a refusal of the ended session: told %v after %v", s.saidGone(), time.Since(start))
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream went on after the hub heard the harness exited")
	}
}
