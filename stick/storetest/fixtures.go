package storetest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/stickhq/stick/stick"
)

// epoch is the time the suite's records start at; every time it stores is
// a whole number of milliseconds after it, in UTC, and read back as the
// same instant (in any location).
var epoch = time.Date(2026, 3, 14, 9, 26, 53, 589_000_000, time.UTC)

// at is epoch plus n seconds.
func at(n int) time.Time { return epoch.Add(time.Duration(n) * time.Second) }

// newRoom is an idle room at path with every optional field empty.
func newRoom(id, path string) stick.Room {
	return stick.Room{ID: id, Path: path, State: stick.StateIdle, CreatedAt: at(0), UpdatedAt: at(0)}
}

// createRooms creates rooms in one Update of e's first handle.
func createRooms(e *env, rooms ...stick.Room) {
	e.t.Helper()
	e.update(e.s, func(tx stick.Tx) error {
		for _, r := range rooms {
			if err := tx.CreateRoom(r); err != nil {
				return fmt.Errorf("create room %s: %w", r.ID, err)
			}
		}
		return nil
	})
}

// appendEvents appends evs in one Update of e's first handle and returns
// them as stored.
func appendEvents(e *env, evs ...stick.Event) []stick.Event {
	e.t.Helper()
	return write(e, func(tx stick.Tx) ([]stick.Event, error) {
		out := make([]stick.Event, len(evs))
		for i, ev := range evs {
			var err error
			if out[i], err = tx.AppendEvent(ev); err != nil {
				return nil, fmt.Errorf("append event %d: %w", i, err)
			}
		}
		return out, nil
	})
}

// note is a note event of room by from, written at at(n).
func note(room, from, text string, n int) stick.Event {
	return stick.Event{RoomID: room, Type: stick.EventNote, From: from, Text: text, MessageType: stick.NoteType("note"), CreatedAt: at(n)}
}

// utc is t in UTC, and the zero time as it is, so that values read from
// a store compare with reflect.DeepEqual whatever location the store
// reads times in; the norm functions below apply it to every time of a
// record.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

func normRoom(r stick.Room) stick.Room {
	r.LeaseExpiresAt, r.ClaimExpiresAt = utc(r.LeaseExpiresAt), utc(r.ClaimExpiresAt)
	r.CreatedAt, r.UpdatedAt, r.ClosedAt = utc(r.CreatedAt), utc(r.UpdatedAt), utc(r.ClosedAt)
	return r
}

func normMember(m stick.Member) stick.Member {
	m.JoinedAt, m.LastSeenAt, m.Process.StartedAt = utc(m.JoinedAt), utc(m.LastSeenAt), utc(m.Process.StartedAt)
	m.WakeAt = utc(m.WakeAt)
	return m
}

// normEvent is e with its time in UTC and its Data in one canonical JSON
// form, since a store may keep Data as a JSON value rather than as the
// bytes given.
func normEvent(e stick.Event) stick.Event {
	e.CreatedAt = utc(e.CreatedAt)
	if len(e.Data) > 0 {
		var v any
		if err := json.Unmarshal(e.Data, &v); err == nil {
			e.Data, _ = json.Marshal(v)
		}
	} else {
		e.Data = nil
	}
	return e
}

func normDocVersion(d stick.DocVersion) stick.DocVersion {
	d.CreatedAt = utc(d.CreatedAt)
	return d
}

// mustEqual fails the test when got and want, normalised by norm, differ.
func mustEqual[T any](e *env, what string, got, want T, norm func(T) T) {
	e.t.Helper()
	if g, w := norm(got), norm(want); !reflect.DeepEqual(g, w) {
		e.t.Fatalf("%s:\n got  %+v\n want %+v", what, g, w)
	}
}

// normAll applies norm to each element of a slice.
func normAll[T any](norm func(T) T) func([]T) []T {
	return func(xs []T) []T {
		out := make([]T, len(xs))
		for i, x := range xs {
			out[i] = norm(x)
		}
		return out
	}
}

// seqs returns the sequence numbers of evs.
func seqs(evs []stick.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}
