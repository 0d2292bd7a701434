package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/stickhq/stick/stick"
)

// The roster of a room's page and the list of rooms change without a
// reload: when what they show changes, the hub sends them again as an
// HTML fragment over Server-Sent Events, rendered by the very template
// the page is (templates/roster.html, roomstable.html), which the script
// swaps in. The room's roster comes as "roster" events on the room's live
// stream (serveLive), the list as "rooms" events on /rooms/live; both are
// fed by a shared watch (feeds), never by polling.

// sseOut writes the events of one stream, from several goroutines.
type sseOut struct {
	mu  sync.Mutex
	w   io.Writer
	rc  *http.ResponseController
	err error
}

// send writes b and flushes it, and reports whether the stream is still
// up.
func (o *sseOut) send(b []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		if _, o.err = o.w.Write(b); o.err == nil {
			o.err = o.rc.Flush()
		}
	}
	return o.err == nil
}

// errEnded is the error of a stream that sent its last event.
var errEnded = errors.New("the stream ended")

// last writes b and flushes it, unless the stream is down, and ends the
// stream: nothing is sent after it.
func (o *sseOut) last(b []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		if _, o.err = o.w.Write(b); o.err == nil {
			o.err = o.rc.Flush()
		}
	}
	if o.err == nil {
		o.err = errEnded
	}
}

// sseEvent is one Server-Sent Event named name whose data is the lines of
// html.
func sseEvent(name, html string) []byte {
	var b bytes.Buffer
	writeSSE(&b, 0, name, html)
	return b.Bytes()
}

// writeSSE writes one Server-Sent Event to b: its id (none for 0), its
// name, and data as its data lines.
func writeSSE(b *bytes.Buffer, id int64, name, data string) {
	if id != 0 {
		fmt.Fprintf(b, "id: %d\n", id)
	}
	fmt.Fprintf(b, "event: %s\n", name)
	for line := range strings.SplitSeq(strings.TrimRight(data, "\n"), "\n") {
		fmt.Fprintf(b, "data: %s\n", line)
	}
	b.WriteString("\n")
}

// followRoster sends the roster of room to out as "roster" events, as
// long as ctx lasts: at once unless its signature is shown (the one the
// page shows, "" when unknown), then whenever it changes, each once
// check passes. When the shared watch fails it ends the whole stream
// (end), so the browser reconnects to a fresh watch rather than show a
// roster that no longer changes.
func (h *Handler) followRoster(ctx context.Context, v viewer, svc *stick.Service, room, shown string, out *sseOut, check *liveCheck, end context.CancelFunc) {
	f, leave := h.live.subscribe(feedKey(v.principal, room), func(ctx context.Context) (any, <-chan struct{}, error) {
		return svc.WatchState(ctx, room)
	})
	defer leave()
	sent := shown
	for {
		val, wake, err := f.latest()
		if err != nil {
			end()
			return
		}
		if st, ok := val.(stick.RoomStatus); ok {
			view := rosterOf(st, h.cfg.Now())
			if view.Sig != sent {
				var b bytes.Buffer
				if h.pages["room"].ExecuteTemplate(&b, "roster", view) != nil || !check.ok() || !out.send(sseEvent("roster", b.String())) {
					return
				}
				sent = view.Sig
			}
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return
		}
	}
}

// serveRoomsLive streams the list of rooms the reader may see, filtered
// by q as the page is, as "rooms" events: at once, then whenever a room
// changes or appears. A comment every KeepAlive keeps proxies from
// closing it; it ends when the reader's credential no longer stands (a
// "signedout" event, see liveCheck), when the shared watch fails (the
// browser's EventSource then reconnects), when the client goes or when
// the hub stops.
func (h *Handler) serveRoomsLive(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.streamErr(w, r, err)
		return
	}
	svc := h.cfg.ServiceFor(v.principal)
	out, end, ok := h.openStream(w, r, svc, func() error {
		_, err := svc.ListRooms(r.Context(), "")
		return err
	})
	if !ok {
		return
	}
	defer end()
	check := h.newLiveCheck(r, v, out, func() {})
	f, leave := h.live.subscribe(feedKey(v.principal, ""), func(ctx context.Context) (any, <-chan struct{}, error) {
		return svc.WatchRooms(ctx)
	})
	defer leave()
	q := r.URL.Query().Get("q")
	keep := time.NewTicker(h.cfg.KeepAlive)
	defer keep.Stop()
	sent := ""
	for {
		val, wake, err := f.latest()
		if err != nil {
			return
		}
		if sums, ok := val.([]stick.RoomSummary); ok {
			body := roomsBodyOf(sums, q, h.cfg.Now())
			if body.Sig != sent {
				var b bytes.Buffer
				if h.pages["rooms"].ExecuteTemplate(&b, "rooms-table", body) != nil || !check.ok() || !out.send(sseEvent("rooms", b.String())) {
					return
				}
				sent = body.Sig
			}
		}
		select {
		case <-wake:
		case <-keep.C:
			if !check.ok() || !out.send([]byte(": keep-alive\n\n")) {
				return
			}
		case <-r.Context().Done():
			return
		case <-h.cfg.Done:
			return
		}
	}
}

// openStream starts a live stream for svc once first, the stream's first
// read, passed: it registers the stream with the hub (Config.BeginStream,
// so the hub's stop ends it), writes the headers and the reconnection
// delay. ok is false when it answered the request itself (first's error,
// a stopping hub, a client gone); else the caller calls end when the
// stream is over.
func (h *Handler) openStream(w http.ResponseWriter, r *http.Request, svc *stick.Service, first func() error) (out *sseOut, end func(), ok bool) {
	if err := first(); err != nil {
		h.streamErr(w, r, err)
		return nil, nil, false
	}
	end = func() {}
	if h.cfg.BeginStream != nil {
		if end, ok = h.cfg.BeginStream(svc); !ok {
			http.Error(w, "the hub is shutting down", http.StatusServiceUnavailable)
			return nil, nil, false
		}
	}
	out = beginSSE(w)
	if !out.send([]byte("retry: 2000\n\n")) {
		end()
		return nil, nil, false
	}
	return out, end, true
}

// beginSSE writes the headers of an event stream and returns its writer.
func beginSSE(w http.ResponseWriter) *sseOut {
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sseOut{w: w, rc: http.NewResponseController(w)}
}
