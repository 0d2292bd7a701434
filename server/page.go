package server

import (
	"net/http"
	"strings"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/web"
)

// newPage makes the hub's web page (package web), read through the
// principal's Service as the API is, signed in to with the hub's tokens
// (with the same limit on failures), open without a token where the API
// is, whose live streams end when the hub stops, and told of the hub's
// public URL and instructions for agents (hubInfo), which it reads afresh
// so that a URL set on its settings is taken up at once. An internal
// error the page answers is logged as the API's are: on the request's log
// line (noteError), under the id the page quotes.
func (s *Server) newPage() (http.Handler, error) {
	return web.New(web.Config{
		ServiceFor: s.serviceFor,
		Authenticate: func(r *http.Request, secret string) (stick.Principal, error) {
			return s.check(r, secret)
		},
		Open:        s.open,
		Local:       s.cfg.Local,
		Secure:      func() bool { return strings.HasPrefix(s.pub().url, "https:") },
		Hub:         s.hubInfo,
		BeginStream: s.beginPoll,
		Done:        s.streamsDone,
		Now:         s.cfg.Now,
		Report:      reportPage,
	})
}

// reportPage logs an internal error the page answered with as the API
// logs its own (writeError): on the request's log line, at level error,
// under the request's id, which it returns for the page to quote.
func reportPage(r *http.Request, err error) string {
	noteError(r, err)
	return requestID(r)
}
