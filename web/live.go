package web

import (
	"bytes"
	"context"
	"net/http"
	"strconv"

	"github.com/stickhq/stick/stick"
)

// serveLive streams a room's new events, after the cursor after (or the
// Last-Event-ID of a reconnecting EventSource), as Server-Sent Events:
// each a "stick" event whose id is the event's seq and whose data is the
// event's HTML, as the feed shows it. It waits for events with
// stick.Service.FollowEvents, which the store's wake-ups end, so an idle
// stream costs no reads; a comment every KeepAlive keeps proxies from
// closing it. The same stream carries the room's roster as "roster"
// events, at once and whenever it changes (followRoster). It ends when
// the room closes (a "closed" event), when the reader's credential no
// longer stands (a "signedout" event, see liveCheck), when the roster's
// watch fails (the browser's EventSource then reconnects), when the
// client goes, or when the hub stops.
func (h *Handler) serveLive(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.streamErr(w, r, err)
		return
	}
	after, err := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		after, err = strconv.ParseInt(id, 10, 64)
	}
	if err != nil || after < 0 {
		http.Error(w, "after must be the seq of the newest event the page shows", http.StatusBadRequest)
		return
	}
	id := r.PathValue("room_id")
	svc := h.cfg.ServiceFor(v.principal)
	out, end, ok := h.openStream(w, r, svc, func() error {
		_, err := svc.RoomState(r.Context(), id)
		return err
	})
	if !ok {
		return
	}
	defer end()
	// sctx ends the stream: the client going, its credential failing
	// (check), or the roster's watch failing.
	sctx, end := context.WithCancel(r.Context())
	defer end()
	check := h.newLiveCheck(r, v, out, end)
	rosterDone := make(chan struct{})
	go func() {
		defer close(rosterDone)
		h.followRoster(sctx, v, svc, id, shownSig(r.URL.Query().Get("roster")), out, check, end)
	}()
	// The roster's last write ends before the handler does.
	defer func() { end(); <-rosterDone }()
	need, _ := stick.Access(stick.ActionPost)
	canAnswer := v.principal.Role.AtLeast(need)
	for {
		ctx, cancel := context.WithTimeout(sctx, h.cfg.KeepAlive)
		page, err := svc.FollowEvents(ctx, id, after, 0)
		cancel()
		switch {
		case sctx.Err() != nil || h.stopped():
			return
		case err != nil && ctx.Err() != nil:
			if !check.ok() || !out.send([]byte(": keep-alive\n\n")) {
				return
			}
			continue
		case err != nil:
			return
		}
		var b bytes.Buffer
		closed := false
		for _, e := range page.Events {
			var frag bytes.Buffer
			view, err := h.liveView(sctx, svc, id, e, canAnswer)
			if err != nil || h.frag.Execute(&frag, view) != nil {
				return
			}
			writeSSE(&b, e.Seq, "stick", frag.String())
			closed = closed || e.Type == stick.EventClose
		}
		if closed {
			writeSSE(&b, 0, "closed", "closed")
		}
		if !check.ok() || !out.send(b.Bytes()) || closed {
			return
		}
		after = page.Cursor
	}
}

// stopped reports whether the hub stopped.
func (h *Handler) stopped() bool {
	if h.cfg.Done == nil {
		return false
	}
	select {
	case <-h.cfg.Done:
		return true
	default:
		return false
	}
}
