package stick

import "time"

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
	// Before keeps only events whose Seq is below it, for paging back
	// (0: no bound).
	Before int64
	// Limit is how many of the newest matching events to return (1..MaxEventLimit).
	Limit int
}
