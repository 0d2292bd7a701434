package stick

import (
	"strconv"
	"strings"
	"time"
)

// ParseExpiry reads how long a new token is to last (TokenRequest.
// ExpiresIn) as people write it: whole days (30d), whole weeks (2w), or a
// Go duration (12h, 90m, 1h30m); it must be positive. name is what the
// reader called the value, for the message ("--expires" on a command
// line). Every frontend that asks a person for an expiry reads it here,
// so all of them take the same words.
//
// Errors: invalid_argument (field expires).
func ParseExpiry(name, s string) (time.Duration, error) {
	bad := Errorf(CodeInvalidArgument, "%s %s is no duration: give whole days (30d), weeks (2w), or hours and minutes (12h, 90m)", name, Quote(s)).
		With("field", "expires")
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days > 100*365 {
			return 0, bad
		}
		d = time.Duration(days) * 24 * time.Hour
	} else if n, ok := strings.CutSuffix(s, "w"); ok {
		weeks, err := strconv.Atoi(n)
		if err != nil || weeks > 100*52 {
			return 0, bad
		}
		d = time.Duration(weeks) * 7 * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, bad
		}
	}
	if d <= 0 {
		return 0, Errorf(CodeInvalidArgument, "%s must be positive, got %s", name, Quote(s)).With("field", "expires").
			WithHint("leave %s out for a token that never expires", name)
	}
	return d, nil
}
