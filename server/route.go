package server

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/replay"
	"github.com/stickhq/stick/stick"
)

// route is one endpoint of the JSON API: what the mux serves and what the
// OpenAPI document says of it.
type route struct {
	method, pattern string
	// tool is the MCP tool the endpoint stands for, "" for none; op
	// names an endpoint of no tool (its OpenAPI operationId).
	tool, op string
	summary  string
	// in is the type of the body (or, for GET, of the query parameters:
	// fields tagged query:"name"); out the type of a success's body.
	in, out reflect.Type
	// codes are the error codes the endpoint documents, besides those
	// every endpoint may answer (commonCodes).
	codes []stick.Code
	// attend marks a read in a room that the caller's presence follows: a
	// holder's read renews its lease, as with the MCP tools.
	attend bool
	// text is the content type of an answer that is not JSON (markdown).
	text  string
	serve func(c *call) (any, error)
}

// commonCodes are the codes any endpoint may answer.
var commonCodes = []stick.Code{stick.CodeInvalidArgument, stick.CodeUnauthenticated, stick.CodeForbidden,
	CodeRateLimited, stick.CodeDBBusy, stick.CodeDBUnavailable, stick.CodeInternal}

// write reports whether the endpoint changes something: an
// Idempotency-Key applies to it.
func (rt route) write() bool { return rt.method != http.MethodGet }

// endpoint makes a route whose handler takes In, decoded from the query
// (GET) or the body (any other method), and answers Out.
func endpoint[In, Out any](method, pattern, tool, summary string, codes []stick.Code, fn func(c *call, in In) (Out, error)) route {
	return route{method: method, pattern: pattern, tool: tool, summary: summary, codes: codes,
		in: reflect.TypeFor[In](), out: reflect.TypeFor[Out](),
		serve: func(c *call) (any, error) {
			var in In
			if err := c.decode(&in); err != nil {
				return nil, err
			}
			return fn(c, in)
		}}
}

// call is one request to an endpoint, as its handler sees it.
type call struct {
	s   *Server
	r   *http.Request
	ctx context.Context
	// svc is the service the request's principal acts through.
	svc       *stick.Service
	principal stick.Principal
	client    string
	// room is the path's room_id, "" for an endpoint of no room.
	room string
	body []byte
	// caller is the member the request acts as (see callerOf).
	caller stick.Caller
	// polled is set when the request began a long poll.
	polled bool
}

// longPoll registers the request as a long poll (see Server.beginPoll):
// it ends at once when the hub stops, and cannot begin while it stops
// (shutting_down). end must be called when it is over.
func (c *call) longPoll() (end func(), err error) {
	end, ok := c.s.beginPoll(c.svc)
	if !ok {
		return nil, shuttingDown()
	}
	c.polled = true
	return end, nil
}

// decode reads the request's input into v: the query of a GET, else the
// body (and then the query must be empty).
func (c *call) decode(v any) error {
	if c.r.Method == http.MethodGet {
		return decodeQuery(c.r.URL.Query(), v)
	}
	if err := decodeQuery(c.r.URL.Query(), &struct{}{}); err != nil {
		return err
	}
	return decodeBody(c.body, v)
}

// text is an answer that is not JSON.
type text struct {
	contentType string
	body        []byte
}

// serveRoute answers one request to rt.
func (s *Server) serveRoute(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in := infoOf(r)
		in.route = rt.method + " " + rt.pattern
		c := &call{s: s, r: r, ctx: r.Context(), room: r.PathValue("room_id"), client: clientName(r)}
		in.client = c.client
		if err := checkClient(c.client); err != nil {
			s.writeError(w, r, err)
			return
		}
		c.principal, _ = stick.PrincipalFrom(r.Context())
		c.svc = s.serviceFor(c.principal)
		var err error
		if c.caller, err = s.callerOf(c.principal, c.client, r.Header.Get(identity.SessionHeader)); err != nil {
			s.writeError(w, r, err)
			return
		}
		if !rt.write() {
			s.answer(w, r, rt, c)
			return
		}
		if c.body, err = readBody(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		keeper := c.svc
		if replay.Redelivered(rt.tool) {
			keeper = nil // kept in memory only
		}
		s.idempotent(w, r, keeper, c.body, func(w http.ResponseWriter) { s.answer(w, r, rt, c) })
	})
}

// answer runs rt's handler and writes its result or error.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, rt route, c *call) {
	out, err := rt.serve(c)
	if err == nil && rt.attend && c.room != "" && c.svc.Attend(c.ctx, c.caller, c.room) {
		out, err = rt.serve(c) // read again: the holder's lease was renewed
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if c.polled && s.isStopping() {
		w.Header().Set(StoppingHeader, "true")
		w.Header().Set("Connection", "close")
	}
	if t, ok := out.(text); ok {
		w.Header().Set("Content-Type", t.contentType)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(t.body)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// serviceFor returns the service principal p acts through.
func (s *Server) serviceFor(p stick.Principal) *stick.Service {
	if s.cfg.ServiceFor == nil {
		return s.cfg.Service
	}
	return s.cfg.ServiceFor(p)
}

// allowed answers a path that exists with a method it does not take:
// method_not_allowed, with the methods it takes in Allow.
func (s *Server) allowed(methods []string) http.Handler {
	allow := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		s.writeError(w, r, stick.Errorf(CodeMethodNotAllowed, "%s is not a method of %s", r.Method, r.URL.Path).
			WithHint("use %s", allow))
	})
}

// notFound answers a path no endpoint has.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, stick.Errorf(CodeNotFound, "no endpoint is at %s", stick.Quote(r.URL.Path)).
		WithHint("see %s/api/v1/openapi.json for the hub's endpoints", s.pub().url))
}
