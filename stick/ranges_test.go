package stick_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// TestDocumentedRangesRefused: every documented range and enum is enforced
// as invalid_argument naming the field and saying what is valid; nothing
// is capped or accepted silently, and a refused call changes nothing.
func TestDocumentedRangesRefused(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	before := e.state(room).LastEventSeq
	dur := func(d time.Duration) *time.Duration { return &d }
	for _, tc := range []struct {
		name, field, says string
		call              func() error
	}{
		{"max_wait_ms above the maximum", "max_wait_ms", "max_wait_ms must be between 0 and 600000 (10m0s), got 600001", func() error {
			_, err := e.svc.WaitForTurn(e.ctx, a, stick.WaitRequest{RoomID: room, MaxWait: dur(stick.MaxWaitLimit + time.Millisecond)})
			return err
		}},
		{"negative max_wait_ms", "max_wait_ms", "max_wait_ms must be between 0 and 600000 (10m0s), got -1", func() error {
			_, err := e.svc.WaitForTurn(e.ctx, a, stick.WaitRequest{RoomID: room, MaxWait: dur(-time.Millisecond)})
			return err
		}},
		{"wait_seconds above the maximum", "wait_seconds", "wait_seconds must be between 0 and 600 seconds (10m0s), got 601 seconds", func() error {
			_, err := e.svc.Sync(e.ctx, a, room, stick.SyncRequest{Wait: 601 * time.Second})
			return err
		}},
		{"max_items above the maximum", "max_items", "max_items must be between 0 (the default, 50) and 1000, got 1001", func() error {
			_, err := e.svc.Sync(e.ctx, a, room, stick.SyncRequest{MaxItems: 1001})
			return err
		}},
		{"events limit above the maximum", "limit", "limit must be between 0 (the default, 50) and 1000, got 1001", func() error {
			_, err := e.svc.RoomEvents(e.ctx, room, 0, 1001)
			return err
		}},
		{"search limit above the maximum", "limit", "limit must be between 0 (the default, 20) and 200, got 201", func() error {
			_, err := e.svc.Search(e.ctx, stick.SearchQuery{Query: "x", Limit: 201})
			return err
		}},
		{"a search type that is a prefix of one", "type", `type "doc" is not a kind of hit: use note, question, answer, decision, release, pass, close or document, or a custom note type (x-...)`, func() error {
			_, err := e.svc.Search(e.ctx, stick.SearchQuery{Query: "x", Type: "doc"})
			return err
		}},
		{"an unknown search type", "type", `type "claim" is not a kind of hit`, func() error {
			_, err := e.svc.Search(e.ctx, stick.SearchQuery{Query: "x", Type: "claim"})
			return err
		}},
		{"a typo of a note type", "message_type", `message_type "questoin" is not a note type: use note, question, answer or decision, or a custom type that starts with "x-"`, func() error {
			_, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "x", Type: "questoin"})
			return err
		}},
		{"a custom type without its prefix", "message_type", `message_type "ci-status" is not a note type`, func() error {
			_, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "x", Type: "ci-status"})
			return err
		}},
		{"a note type in capitals", "message_type", `message_type "Question" is not a note type`, func() error {
			_, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "x", Type: "Question"})
			return err
		}},
		{"an empty custom type", "message_type", `message_type "x-" is not a note type`, func() error {
			_, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "x", Type: "x-"})
			return err
		}},
		{"a typo in a synced note", "outbox[1].message_type", `outbox[1].message_type "decison" is not a note type`, func() error {
			_, err := e.svc.Sync(e.ctx, a, room, stick.SyncRequest{Outbox: []stick.Note{{Text: "ok"}, {Text: "x", Type: "decison"}}})
			return err
		}},
	} {
		err := tc.call()
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		se := stick.AsError(err)
		if se.Code != stick.CodeInvalidArgument || se.Details["field"] != tc.field || !strings.HasPrefix(se.Message, tc.says) {
			t.Errorf("%s: %s %q (field %v); want invalid_argument on %s saying %q", tc.name, se.Code, se.Message, se.Details["field"], tc.field, tc.says)
		}
	}
	if after := e.state(room).LastEventSeq; after != before {
		t.Errorf("refused calls wrote events: last seq %d -> %d", before, after)
	}
}

// TestNoteTypes: the known types and custom x- types are accepted, stored
// as given and found by a search for that type; the exported sets agree
// with the exported patterns.
func TestNoteTypes(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	for _, typ := range []stick.NoteType{"note", "question", "answer", "decision", "x-ci-status", "x-ci.v2_build"} {
		res, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "wombat " + string(typ), Type: typ})
		if err != nil || res.Event.MessageType != typ {
			t.Fatalf("post %s: %+v %v", typ, res.Event, err)
		}
		hits, err := e.svc.Search(e.ctx, stick.SearchQuery{Query: "wombat", Type: string(typ)})
		if err != nil || len(hits) != 1 || hits[0].Type != string(typ) {
			t.Errorf("search --type %s: %+v %v", typ, hits, err)
		}
	}
	note, search := regexp.MustCompile(stick.NoteTypePattern), regexp.MustCompile(stick.SearchTypePattern)
	for _, typ := range stick.NoteTypes {
		if !note.MatchString(string(typ)) || !slices.Contains(stick.SearchTypes, string(typ)) {
			t.Errorf("note type %s: not in the pattern or not a search type", typ)
		}
	}
	for _, typ := range stick.SearchTypes {
		if !search.MatchString(typ) {
			t.Errorf("search type %s not in the pattern", typ)
		}
	}
	if long := "x-" + strings.Repeat("a", stick.MaxMessageTypeLen-2); !note.MatchString(long) || note.MatchString(long+"a") {
		t.Errorf("the pattern must allow custom types of up to %d bytes, and no more", stick.MaxMessageTypeLen)
	}
}
