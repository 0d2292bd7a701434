// Package web is the hub's page, served by 'stick serve' at /: the rooms
// a principal may see, one room's roster, live feed and document, search
// across rooms, a room's export, how to connect an agent, the operators'
// settings (tokens, the public URL), and signing in with a token (or
// reading with a bearer token). A reader whose role may write also takes
// part by hand, as its own member: it joins a room, posts notes, hands
// the stick on with a handoff, or takes it over. Its templates
// (html/template) and its assets (one stylesheet, small scripts) are
// embedded with go:embed, so the page needs no network and no build
// step, and it reads fine without JavaScript: every form is a POST
// answered by a redirect. The scripts only filter the list of rooms as
// one types, copy text to the clipboard, ask before a form that cannot be
// undone, append a room's new events, and swap in the roster and the
// list of rooms as they change, all of which arrive as HTML fragments
// over Server-Sent Events fed by the store's wake-ups
// (stick.Service.FollowEvents, WatchState, WatchRooms), never by polling.
//
// Like every frontend it translates and decides nothing: what a principal
// may read and do is the stick.Service it is given (Config.ServiceFor),
// who a token stands for is the hub's authentication (Config.Authenticate).
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
