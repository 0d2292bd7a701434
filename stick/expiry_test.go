package stick_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// An expiry is whole days, weeks or a Go duration, positive; anything
// else is invalid_argument on expires, naming the value as its reader
// called it.
func TestParseExpiry(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute, "1h30m": 90 * time.Minute} {
		if got, err := stick.ParseExpiry("the expiry", in); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "soon", "-1d", "0", "0d", "-5m", "1.5d", "99999999d", "30 d"} {
		_, err := stick.ParseExpiry("the expiry", in)
		e := stick.AsError(err)
		if e == nil || e.Code != stick.CodeInvalidArgument || e.Details["field"] != "expires" || !strings.HasPrefix(e.Message, "the expiry ") {
			t.Errorf("%q: %v", in, err)
		}
	}
}
