package stick

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Limits on inputs that have no limit of their own elsewhere. Every Service
// entry point checks the sizes of its inputs before any other work, so an
// over-large value costs neither memory nor a long reply.
const (
	// MaxPathLen bounds a context path (PATH_MAX on Linux).
	MaxPathLen = 4096
	// MaxIDLen bounds every identifier stick hands out and takes back:
	// room_id, lease_id, reclaim_token, cursor, client_message_id.
	MaxIDLen = 128
	// MaxReclaimTokens bounds JoinRequest.ReclaimIfGone.
	MaxReclaimTokens = 64
	// MaxHeld bounds JoinRequest.Held: the rooms one caller of a frontend
	// joined and is still remembered in.
	MaxHeld = 256
	// MaxOrderLen bounds the agent ids of one ReorderMembers call.
	MaxOrderLen = 1000
	// MaxQuoted is how many bytes of a bad value a message quotes.
	MaxQuoted = 64
)

// Quote returns s quoted for an error message: whole when it is at most
// MaxQuoted bytes, otherwise its first MaxQuoted bytes (cut at a character
// boundary) with an ellipsis and s's full length, so a huge value is never
// echoed back.
func Quote(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	cut := MaxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// checkLen refuses s when it is longer than max bytes, naming field and
// quoting none of s.
func checkLen(field, s string, max int) error {
	if len(s) > max {
		return tooLong(field, len(s), max)
	}
	return nil
}

// tooLong is the invalid_argument error of a field of n bytes over max.
func tooLong(field string, n, max int) *Error {
	return invalidArg(field, "%s is %d bytes; at most %d are allowed", field, n, max).
		With("max_bytes", max)
}
