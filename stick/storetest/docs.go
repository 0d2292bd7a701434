package storetest

import (
	"fmt"
	"strings"

	"github.com/stickhq/stick/stick"
)

var docCases = []testCase{
	{"NoDocument", testNoDoc},
	{"VersionsAndHistory", testDocVersions},
}

// A room whose document was never saved has no version and no history.
func testNoDoc(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"))
	e.view(e.s, func(tx stick.Tx) error {
		for _, v := range []int64{0, 1} {
			if d, ok, err := tx.Doc("room_1", v); ok || err != nil {
				e.t.Fatalf("Doc(%d) of a room with no document: %+v %v %v", v, d, ok, err)
			}
		}
		if h, err := tx.DocHistory("room_1"); len(h) != 0 || err != nil {
			e.t.Fatalf("DocHistory of a room with no document: %+v %v", h, err)
		}
		return nil
	})
}

// docVersionAt is version v of a document, written by one of two authors.
func docVersionAt(room string, v int64, content string) stick.Document {
	author, op := "a", stick.DocUpdate
	if v%3 == 0 {
		author, op = "b", stick.DocAppend
	}
	return stick.Document{
		DocVersion: stick.DocVersion{RoomID: room, Version: v, Author: author, Op: op, Size: len(content), EventSeq: 1000 + v, CreatedAt: at(int(v))},
		Content:    content,
	}
}

// docContents is the content of versions 1..n of a document that grows,
// is edited in its middle, shrinks, holds multi-byte characters and is
// rewritten whole, as a document's life has it.
func docContents(n int) []string {
	out := make([]string, n)
	cur := "# Plan\n\nStart here.\n"
	for i := range n {
		switch {
		case i == 0:
		case i%17 == 0:
			cur = fmt.Sprintf("# Rewritten %d\n\nEverything new: ünïcödé ✓ 日本語.\n", i)
		case i%5 == 0:
			mid := len(cur) / 2
			for mid < len(cur) && cur[mid]&0xC0 == 0x80 {
				mid++
			}
			cur = cur[:mid] + fmt.Sprintf(" [edit %d é] ", i) + cur[mid:]
		case i%7 == 0:
			cur = cur[:len(cur)/3]
			for !strings.HasSuffix(cur, "\n") && len(cur) > 0 {
				cur = cur[:len(cur)-1]
			}
		default:
			cur += fmt.Sprintf("\n- item %d: done ✓\n", i)
		}
		out[i] = cur
	}
	return out
}

// Each save makes the next version current; every version reads back as
// it was saved, 0 reads the current one, and the history lists every
// version oldest first. Two rooms' documents are apart.
func testDocVersions(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	const n = 70
	contents := docContents(n)
	var saved []stick.Document
	for v := int64(1); v <= n; v++ {
		d := docVersionAt("room_1", v, contents[v-1])
		e.update(e.s, func(tx stick.Tx) error {
			if err := tx.SaveDoc(d); err != nil {
				return err
			}
			got, ok, err := tx.Doc("room_1", 0)
			if err != nil || !ok {
				e.t.Fatalf("Doc(0) in the transaction that saved version %d: ok %v, err %v", v, ok, err)
			}
			mustEqual(e, "the current document in the transaction that saved it", got, d, normDoc)
			return nil
		})
		saved = append(saved, d)
	}
	other := docVersionAt("room_2", 1, "# Other room\n")
	e.update(e.s, func(tx stick.Tx) error { return tx.SaveDoc(other) })

	doc := func(room string, v int64) (stick.Document, bool) {
		var d stick.Document
		var ok bool
		e.view(e.s, func(tx stick.Tx) error {
			var err error
			d, ok, err = tx.Doc(room, v)
			return err
		})
		return d, ok
	}
	cur, ok := doc("room_1", 0)
	if !ok {
		e.t.Fatal("Doc(0) after saves found nothing")
	}
	mustEqual(e, "the current document", cur, saved[n-1], normDoc)
	for _, want := range saved {
		got, ok := doc("room_1", want.Version)
		if !ok {
			e.t.Fatalf("version %d is not found", want.Version)
		}
		mustEqual(e, "version "+itoa(int(want.Version)), got, want, normDoc)
	}
	if d, ok := doc("room_1", n+1); ok {
		e.t.Fatalf("a version after the current one was found: %+v", d.DocVersion)
	}
	if d, ok := doc("room_2", 0); !ok || d.Content != other.Content || d.Version != 1 {
		e.t.Fatalf("the other room's document: %+v %v", d, ok)
	}
	if d, ok := doc("room_2", 2); ok {
		e.t.Fatalf("the other room's document has a version 2: %+v", d.DocVersion)
	}

	history := read(e, func(tx stick.Tx) ([]stick.DocVersion, error) { return tx.DocHistory("room_1") })
	want := make([]stick.DocVersion, len(saved))
	for i, d := range saved {
		want[i] = d.DocVersion
	}
	mustEqual(e, "the history", history, want, normAll(normDocVersion))
	other2 := read(e, func(tx stick.Tx) ([]stick.DocVersion, error) { return tx.DocHistory("room_2") })
	mustEqual(e, "the other room's history", other2, []stick.DocVersion{other.DocVersion}, normAll(normDocVersion))
}

func normDoc(d stick.Document) stick.Document {
	d.DocVersion = normDocVersion(d.DocVersion)
	return d
}
