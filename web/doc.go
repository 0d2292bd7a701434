// Package web is the hub's page, served by 'stick serve' at /: the rooms
// a principal may see, one room's roster, live feed and document, and
// signing in with a token. Its templates (html/template) and its assets
// (one stylesheet, one small script) are embedded with go:embed, so the
// page needs no network and no build step, and it reads fine without
// JavaScript; the script only filters the list of rooms as one types and
// appends a room's new events, which arrive as HTML fragments over
// Server-Sent Events fed by the store's wake-ups (stick.Service.
// FollowEvents), never by polling.
//
// Like every frontend it translates and decides nothing: what a principal
// may read is the stick.Service it is given (Config.ServiceFor), who a
// token stands for is the hub's authentication (Config.Authenticate).
// Everything a room holds is text that html/template escapes, after
// package render has written its control characters out visibly; none of
// it is ever trusted as HTML. The one text made into HTML, the room's
// document, is rendered from markdown by goldmark (markdown.go), which
// leaves raw HTML out, with a filter that keeps only http, https and
// mailto links, and within a bound of time and table cells; its page
// also shows its history, a diff between any two versions (the project's
// own internal/linediff), and a form that writes it with the tools'
// compare-and-set (docedit.go).
package web
