package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/liveness"
	"github.com/stickhq/stick/stick"
)

// maxStreamLine bounds a line a proxy sends on a liveness stream.
const maxStreamLine = 1 << 20

// livenessRoute is the route of liveness streams, for logs and metrics.
const livenessRoute = "POST " + liveness.Path

// serveLiveness serves one liveness stream of a proxy ('stick mcp
// --server', see package liveness): full duplex, one JSON message per
// line each way. The member it stands for is named as the proxy's MCP
// calls name it: the credential, the client (ClientHeader) and the
// session (identity.SessionHeader). While the stream is up the hub's
// liveness (Config.Liveness) judges the member alive; the proxy's gone
// makes it gone for good; a stream that drops, or from which nothing is
// heard for liveness.Silence, leaves it out of touch, gone after the
// room's grace unless a stream comes back. The leases the proxy names are
// kept alive (stick.Service.KeepAlive) while the stream is up.
//
// It refuses, before streaming, a hub without a liveness (not_found), a
// missing or malformed session or client (invalid_argument), a session
// whose harness exited (invalid_argument), and a stream begun while the
// hub stops (shutting_down). A stopping hub ends every stream with a
// shutdown message.
func (s *Server) serveLiveness(w http.ResponseWriter, r *http.Request) {
	in := infoOf(r)
	client := clientName(r)
	in.client = client
	if s.cfg.Liveness == nil {
		s.writeError(w, r, stick.Errorf(CodeNotFound, "this hub keeps no liveness streams").
			WithHint("members behind proxies are judged by their leases here"))
		return
	}
	if err := checkClient(client); err != nil {
		s.writeError(w, r, err)
		return
	}
	sess, err := identity.ParseSession(r.Header.Get(identity.SessionHeader))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, _ := stick.PrincipalFrom(r.Context())
	caller, err := identity.NameSession(p, identity.Client{Name: client}, sess)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	end, ok := s.beginStream()
	if !ok {
		s.writeError(w, r, shuttingDown())
		return
	}
	defer end()
	drop, err := s.cfg.Liveness.Connect(caller.Process)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer drop()

	rc := http.NewResponseController(w) // full duplex since observe: read the proxy's lines while answering
	w.Header().Set("Content-Type", liveness.ContentType)
	w.Header().Set("Cache-Control", "no-store")
	// The proxy's body may go on after the stream ends here: the
	// connection is closed then, not kept for a next request.
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: rc}
	if st.send(liveness.Message{Type: liveness.Ready, AgentID: caller.AgentID}) != nil {
		return
	}

	ctx, cancel := context.WithCancel(r.Context())
	k := stick.NewKeepers(ctx, s.serviceFor(p))
	defer k.Wait()
	defer cancel()
	lines, failed := make(chan liveness.Message), make(chan error, 1)
	go readStream(ctx, r.Body, rc, lines, failed)
	ping := time.NewTicker(liveness.PingEvery)
	defer ping.Stop()
	for {
		select {
		case m := <-lines:
			switch m.Type {
			case liveness.Hello:
				for _, l := range m.Leases {
					k.Keep(caller, l)
				}
			case liveness.Keep:
				if m.Lease != nil {
					k.Keep(caller, *m.Lease)
				}
			case liveness.End:
				k.End(m.RoomID)
			case liveness.Gone:
				s.cfg.Liveness.Gone(caller.Process)
				return
			}
		case err := <-failed:
			if !errors.Is(err, io.EOF) {
				noteError(r, err)
			}
			return
		case <-ping.C:
			if st.send(liveness.Message{Type: liveness.Ping}) != nil {
				return
			}
		case <-s.streamsDone:
			_ = st.send(liveness.Message{Type: liveness.Shutdown})
			noteError(r, errors.New("the hub is stopping"))
			return
		}
	}
}

// stream writes a liveness stream's lines.
type stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// send writes one message and flushes it, giving up after
// liveness.Silence on a peer that reads nothing.
func (st *stream) send(m liveness.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_ = st.rc.SetWriteDeadline(time.Now().Add(liveness.Silence))
	if _, err := st.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return st.rc.Flush()
}

// readStream reads a proxy's lines into lines until the body ends, a line
// is not a message, nothing comes for liveness.Silence, or ctx ends; the
// error that ends it goes to failed.
func readStream(ctx context.Context, body io.Reader, rc *http.ResponseController, lines chan<- liveness.Message, failed chan<- error) {
	br := bufio.NewReaderSize(body, 4<<10)
	for {
		_ = rc.SetReadDeadline(time.Now().Add(liveness.Silence))
		line, err := readStreamLine(br)
		if err != nil {
			failed <- err
			return
		}
		if len(line) == 0 {
			continue
		}
		var m liveness.Message
		if err := json.Unmarshal(line, &m); err != nil {
			failed <- stick.Errorf(stick.CodeInvalidArgument, "a line of the liveness stream is not a message: %v", err)
			return
		}
		select {
		case lines <- m:
		case <-ctx.Done():
			return
		}
	}
}

// readStreamLine reads one line, at most maxStreamLine bytes.
func readStreamLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxStreamLine {
			return nil, stick.Errorf(CodeTooLarge, "a line of the liveness stream is longer than %d bytes", maxStreamLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return line[:len(line)-1], nil
	}
}
