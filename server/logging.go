package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"time"

	"github.com/stickhq/stick/liveness"
)

// info is what the hub learns of one request while serving it, for its
// log line and metrics: the outermost handler puts it in the context, the
// inner ones fill it in.
type info struct {
	id string
	// route is the pattern of the endpoint that served the request, ""
	// when none did (refused before, or no such path).
	route string
	// token is the name of the credential the request authenticated with.
	token, client string
	// err is the error the request was answered with.
	err error
	// replayed is set when the answer came from the idempotency cache.
	replayed bool
}

type infoKey struct{}

// infoOf returns the request's info; a fresh one outside the hub's handler
// (tests of one handler).
func infoOf(r *http.Request) *info {
	if in, ok := r.Context().Value(infoKey{}).(*info); ok {
		return in
	}
	return &info{}
}

// requestID returns the id the hub gave the request, which its log line
// and a 500's message carry.
func requestID(r *http.Request) string { return infoOf(r).id }

// noteError keeps the error a request is answered with for its log line.
func noteError(r *http.Request, err error) { infoOf(r).err = err }

// statusWriter remembers the status and size of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(st int) {
	if w.status == 0 {
		w.status = st
	}
	w.ResponseWriter.WriteHeader(st)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush passes a flush on, for streamed answers (MCP's event streams).
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe is the outermost handler: it gives the request an id and its
// info, and when the answer is written logs one line and counts it. The
// line has the method, the path (never the query, which may hold search
// words), the route, the status, the duration, the size, and the name of
// the credential and the client; never a secret, nor any header.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if r.URL.Path == liveness.Path {
			// A proxy's liveness stream sends its body for as long as it
			// lasts: an answer, a refusal too, must not wait to read it
			// to its end first, as net/http does for other requests; and
			// once answered, nothing more of it is read. The connection
			// is closed after the answer, a refusal's too: its read
			// deadline is spent, so a next request on it would fail.
			rc := http.NewResponseController(w)
			_ = rc.EnableFullDuplex()
			w.Header().Set("Connection", "close")
			defer func() { _ = rc.SetReadDeadline(time.Now()) }()
		}
		in := &info{id: newRequestID()}
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, in))
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		took := time.Since(start)
		s.metrics.request(in.route, r.Method, sw.status, took)
		attrs := []slog.Attr{
			slog.String("id", in.id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("route", in.route), slog.Int("status", sw.status),
			slog.Float64("duration_ms", float64(took.Microseconds())/1000), slog.Int64("bytes", sw.bytes),
			slog.String("remote", clientAddr(r)),
		}
		if in.token != "" {
			attrs = append(attrs, slog.String("token", in.token))
		}
		if in.client != "" {
			attrs = append(attrs, slog.String("client", in.client))
		}
		if in.replayed {
			attrs = append(attrs, slog.Bool("replayed", true))
		}
		level := slog.LevelInfo
		if in.err != nil {
			attrs = append(attrs, slog.String("error", in.err.Error()))
			if sw.status >= 500 {
				level = slog.LevelError
			}
		}
		s.log.LogAttrs(context.Background(), level, "request", attrs...)
	})
}

// newRequestID returns a short random id for a request.
func newRequestID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "req_" + hex.EncodeToString(b)
}
