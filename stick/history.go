package stick

import (
	"strconv"
	"strings"
	"time"
)

// ChannelStat is what a store knows of one channel's notes.
type ChannelStat struct {
	Channel string
	Notes   int
	Bytes   int64
	Last    time.Time
}

// HistoryQuery selects events of one room's log. Every filter that is set
// must match; a list matches when any of its entries does.
type HistoryQuery struct {
	RoomID string
	// Channels keeps only notes of these channels (DefaultChannel also
	// matches notes with no channel); none keeps every event.
	Channels []string
	// From keeps only events these members appended (agent ids).
	From []string
	// Types keeps only events of these types.
	Types []EventType
	// NoteTypes keeps only notes of these message types.
	NoteTypes []NoteType
	// Since and Until keep only events appended at or after Since and
	// before Until (zero: no bound).
	Since, Until time.Time
	// SinceAgo and UntilAgo, when set, are Since and Until as spans back
	// from the Service's now (its clock), for the frontends.
	SinceAgo, UntilAgo time.Duration
	// Before keeps only events whose Seq is below it, for paging back
	// (0: no bound).
	Before int64
	// Limit is how many of the newest matching events to return (1..MaxEventLimit).
	Limit int
}

// TimeBound is a bound of a history query as a person or model writes
// it: a time, or a span back from now that the Service measures on its
// own clock when it runs the query.
type TimeBound struct {
	At  time.Time
	Ago time.Duration
}

// ParseTimeBound reads a time bound of a history query: "" for none, an
// RFC 3339 time, or a span back from now such as 90m, 2h or 3d. field
// names it in the error.
//
// Errors: invalid_argument.
func ParseTimeBound(field, s string) (TimeBound, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return TimeBound{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return TimeBound{At: t}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 && n < 100000 {
			return TimeBound{Ago: time.Duration(n) * 24 * time.Hour}, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return TimeBound{Ago: d}, nil
	}
	return TimeBound{}, invalidArg(field, "%s %s is neither a time (RFC 3339, like 2026-11-28T09:00:00Z) nor a span back from now (like 2h or 3d)", field, Quote(s))
}
