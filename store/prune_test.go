package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// Pruning notes, some indexed and some not yet, leaves both tables of the
// search index sound (search_words keeps its text in search_index, so a
// row deleted with other text than it holds would corrupt it) and with no
// row of a pruned note; a store without FTS5 prunes too.
func TestPruneKeepsTheSearchIndexSound(t *testing.T) {
	for _, noFTS := range []bool{false, true} {
		t.Run(fmt.Sprintf("noFTS=%v", noFTS), func(t *testing.T) {
			st, err := OpenDir(t.TempDir(), Options{noFTS: noFTS})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ctx := context.Background()
			now := time.UnixMilli(1_700_000_000_000).UTC()
			appendNotes := func(from, n int) {
				err := st.Update(ctx, func(tx stick.Tx) error {
					for i := from; i < from+n; i++ {
						ev := stick.Event{RoomID: "room_1", Type: stick.EventNote, From: "a", Text: fmt.Sprintf("note number%d of many", i), CreatedAt: now}
						if _, err := tx.AppendEvent(ev); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			err = st.Update(ctx, func(tx stick.Tx) error {
				return tx.CreateRoom(stick.Room{ID: "room_1", Path: "/r", State: stick.StateIdle, CreatedAt: now, UpdatedAt: now})
			})
			if err != nil {
				t.Fatal(err)
			}
			appendNotes(0, 300) // crosses indexEvery: most are indexed by the way
			appendNotes(300, 20)
			err = st.Update(ctx, func(tx stick.Tx) error {
				if _, err := tx.AppendEvent(stick.Event{RoomID: "room_1", Type: stick.EventJoin, From: "b", CreatedAt: now}); err != nil {
					return err
				}
				n, err := tx.PruneNotes("room_1", "", 10, 0, time.Time{})
				if n != 310 {
					t.Errorf("pruned %d notes, want 310", n)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.CatchUpSearch(ctx); err != nil {
				t.Fatal(err)
			}
			if noFTS {
				return
			}
			c := rawConn(t, st.Path())
			for _, q := range []string{
				"INSERT INTO search_index (search_index) VALUES ('integrity-check')",
				"INSERT INTO search_words (search_words) VALUES ('integrity-check')",
			} {
				query(t, c, q)
			}
			for q, want := range map[string]string{
				"SELECT count(*) FROM search_index":                                                   "10",
				"SELECT count(*) FROM search_words WHERE search_words MATCH 'many'":                   "10",
				"SELECT count(*) FROM search_index WHERE rowid NOT IN (SELECT event_seq FROM events)": "0",
				"SELECT min(rowid) FROM search_words WHERE search_words MATCH 'number*'":              "311",
			} {
				if got := query(t, c, q); got != want {
					t.Errorf("%s: %s, want %s", q, got, want)
				}
			}
		})
	}
}
