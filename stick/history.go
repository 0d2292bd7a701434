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

// SetSpan sets q's time bounds from since and until as a person or a
// model writes them: "" for none, an RFC 3339 time, or a span back from
// now such as 90m, 2h or 3d, which the Service measures on its own clock
// when it runs the query (SinceAgo, UntilAgo).
//
// Errors: invalid_argument (since, until).
func (q *HistoryQuery) SetSpan(since, until string) error {
	var err error
	if q.Since, q.SinceAgo, err = parseTimeBound("since", since); err != nil {
		return err
	}
	q.Until, q.UntilAgo, err = parseTimeBound("until", until)
	return err
}

// parseTimeBound reads one bound of SetSpan: a time, or a span back from
// now; field names it in the error.
func parseTimeBound(field, s string) (at time.Time, ago time.Duration, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, 0, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 && n < 100000 {
			return time.Time{}, time.Duration(n) * 24 * time.Hour, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return time.Time{}, d, nil
	}
	return time.Time{}, 0, invalidArg(field, "%s %s is neither a time (RFC 3339, like 2026-11-28T09:00:00Z) nor a span back from now (like 2h or 3d)", field, Quote(s))
}
