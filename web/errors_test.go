package web_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/web"
)

// An internal error is not shown as it is (its text may name the hub's
// files): the page, and a live stream's refusal, say the hub failed and
// quote the id the hub's log files it under (Config.Report), which gets
// the error itself.
func TestInternalErrorsAreReported(t *testing.T) {
	var mu sync.Mutex
	var reported []error
	e := newEnv(t, true, func(c *web.Config) {
		c.Open = func(context.Context) (bool, error) {
			return false, errors.New("open /var/lib/secret/rooms.sqlite: disk I/O error")
		}
		c.Report = func(r *http.Request, err error) string {
			mu.Lock()
			defer mu.Unlock()
			reported = append(reported, err)
			return "req_0123456789ab"
		}
	})
	c := e.client()
	for _, path := range []string{"/", "/rooms/room_x", "/rooms/room_x/live?after=0", "/rooms/live", "/search?q=x"} {
		st, body := e.get(c, path)
		if st != http.StatusInternalServerError || strings.Contains(body, "/var/lib") || strings.Contains(body, "disk I/O") ||
			!strings.Contains(body, "The hub could not answer this page; its log has the details (request req_0123456789ab).") {
			t.Errorf("%s: %d\n%s", path, st, body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) != 5 || !strings.Contains(reported[0].Error(), "disk I/O error") {
		t.Errorf("reported: %v", reported)
	}
}

// Without a Report, an internal error still says only that the hub
// failed.
func TestInternalErrorWithoutReport(t *testing.T) {
	e := newEnv(t, true, func(c *web.Config) {
		c.Open = func(context.Context) (bool, error) { return false, errors.New("sqlite: /secret/x.db is locked") }
	})
	st, body := e.get(e.client(), "/")
	if st != http.StatusInternalServerError || strings.Contains(body, "/secret") || !strings.Contains(body, "The hub could not answer this page; its log has the details.") {
		t.Errorf("%d\n%s", st, body)
	}
}

// The page answers a refusal with the API's status for its code.
func TestPageStatusesAreTheAPIs(t *testing.T) {
	for code, want := range map[stick.Code]int{
		stick.CodeRoomClosed: 409, stick.CodeStickHeld: 409, stick.CodeVersionConflict: 409, stick.CodeUnknownMember: 409,
		stick.CodeSearchUnavailable: 503, stick.CodeDBBusy: 503, stick.CodeDBUnavailable: 503, "shutting_down": 503, "rate_limited": 429,
		stick.CodeInvalidHandoff: 400, stick.CodeRoomNotFound: 404, stick.CodeDBCorrupt: 500,
	} {
		e := newEnv(t, true, func(c *web.Config) {
			c.Open = func(context.Context) (bool, error) { return false, stick.Errorf(code, "refused: %s", code) }
		})
		st, body := e.get(e.client(), "/")
		if st != want {
			t.Errorf("%s: %d, want %d", code, st, want)
		}
		if want != 500 && !strings.Contains(body, "refused: "+string(code)) {
			t.Errorf("%s: the page does not say why:\n%s", code, body)
		}
	}
}
