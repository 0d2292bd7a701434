package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"sync"

	"github.com/stickhq/stick/internal/httpcode"
	"github.com/stickhq/stick/stick"
)

// The codes of errors only the hub gives: they concern HTTP itself, not
// the protocol, so package stick has no use for them (see package
// httpcode, whose codes these are).
const (
	// CodeNotFound: no endpoint has this path.
	CodeNotFound = httpcode.NotFound
	// CodeMethodNotAllowed: the path exists, but not with this method.
	CodeMethodNotAllowed = httpcode.MethodNotAllowed
	// CodeTooLarge: the request body is over the hub's limit.
	CodeTooLarge = httpcode.TooLarge
	// CodeRateLimited: too many failed authentications came from the
	// client's address; Retry-After says when to try again.
	CodeRateLimited = httpcode.RateLimited
	// CodeIdempotencyKeyReused: the Idempotency-Key was used before for
	// another request (another method, path or body).
	CodeIdempotencyKeyReused = httpcode.IdempotencyKeyReused
	// CodeShuttingDown: the hub is stopping; Retry-After says when to try
	// again (a restarted hub, or another one).
	CodeShuttingDown = httpcode.ShuttingDown
)

// retryAfter is the Retry-After, in seconds, of a 503 or 429 that does not
// say its own: a busy store or a stopping hub is worth asking again soon.
const retryAfter = 1

// statusOf returns the HTTP status of an error code: the one mapping
// the page answers with too (httpcode.Status).
func statusOf(code stick.Code) int { return httpcode.Status(code) }

// errorBody is the body of every error answer:
// {"error": {"code", "message", "hint", "details"}}.
type errorBody struct {
	Error errorFields `json:"error"`
}

// errorFields are a coded error's fields, as every frontend shows them.
type errorFields struct {
	Code    stick.Code     `json:"code"`
	Message string         `json:"message"`
	Hint    string         `json:"hint,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

// failure is what the hub answers for err: its status and body. An error
// of status 500 keeps its code but not its message, which may name the
// hub's files or say what failed inside it: the caller gets the request's
// id to quote, and the hub's log has the rest (see logRequest).
func failure(err error, requestID string) (int, errorBody) {
	e := stick.AsError(err)
	st := statusOf(e.Code)
	f := errorFields{Code: e.Code, Message: apiWords(e.Message), Hint: apiWords(e.Hint), Details: e.Details}
	if st == http.StatusInternalServerError {
		f.Message = "the hub failed to serve this request (request " + requestID + ")"
		f.Hint = "try again later; the hub's operator finds the cause in its log under request " + requestID
		f.Details = nil
	}
	return st, errorBody{Error: f}
}

// writeError answers err. A 503 and a 429 carry Retry-After (the error's
// details["retry_after_s"], else retryAfter); a 401 carries
// WWW-Authenticate, naming where the hub's resource metadata is.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	st, body := failure(err, requestID(r))
	noteError(r, err)
	switch st {
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		secs := retryAfter
		if n, ok := body.Error.Details["retry_after_s"].(int); ok && n > 0 {
			secs = n
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.metadataURL()+`"`)
	}
	writeJSON(w, st, body)
}

// writeJSON answers v as JSON with status st. '<', '>' and '&' are
// written as they are, not as \u003c and the like: the answer is JSON,
// never HTML, and people read it in a terminal.
func writeJSON(w http.ResponseWriter, st int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if err != nil {
		st = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"the hub could not encode its answer"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(st)
	_, _ = w.Write(append(b, '\n'))
}

// toolNames matches the name of an MCP tool (a word with an underscore,
// such as get_room_state) in a message or hint of package stick.
var toolNames = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)

// toolEndpoints maps an MCP tool to the endpoint of the JSON API that
// stands for it ("GET /api/v1/rooms/{room_id}"), for apiWords.
var toolEndpoints = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, rt := range apiRoutes() {
		if rt.tool != "" {
			m[rt.tool] = rt.method + " " + rt.pattern
		}
	}
	return m
})

// apiWords writes the MCP tool names that messages and hints of package
// stick use as the endpoints of the JSON API a curl user calls instead:
// "read the room with get_room_state" becomes "read the room with GET
// /api/v1/rooms/{room_id}". Words that name no tool are left alone.
func apiWords(s string) string {
	return toolNames.ReplaceAllStringFunc(s, func(w string) string {
		if ep, ok := toolEndpoints()[w]; ok {
			return ep
		}
		return w
	})
}
