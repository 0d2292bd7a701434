package store

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// remove deletes the bells of members that left, after the commit that
// removed them, and wakes this process's waiters on them (other
// processes' waiters are woken by the removal itself). A bell that
// cannot be removed is left for the next prune.
func (b *bells) remove(names []string) {
	for _, name := range names {
		_ = os.Remove(filepath.Join(b.dir, name))
		b.wake(name)
	}
}

// isBellName reports whether name is a bell's file name (bellName).
func isBellName(name string) bool {
	_, err := hex.DecodeString(name)
	return len(name) == 20 && err == nil
}

// pruneBells deletes the bells of members and rooms that no longer exist,
// and of closed rooms (nobody waits in one), so the bells directory does
// not grow with every member that ever joined. The directory is listed before the members are read: a bell
// created by a member who joined meanwhile is that of a member read. A
// waiter whose bell is removed anyway is woken by the removal, looks
// again, and watches a new bell. Failures only leave bells behind.
func (s *Store) pruneBells() {
	entries, err := os.ReadDir(s.bells.dir)
	if err != nil || len(entries) == 0 {
		return
	}
	keep := make(map[string]bool)
	err = s.View(context.Background(), func(stx stick.Tx) error {
		t := stx.(*tx)
		return sqlitex.Execute(t.conn, `SELECT room_id, agent_id FROM members JOIN rooms USING (room_id) WHERE state != 'closed'
			 UNION ALL SELECT room_id, '' FROM rooms WHERE state != 'closed'`,
			&sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
				keep[bellName(st.ColumnText(0), st.ColumnText(1))] = true
				return nil
			}})
	})
	if err != nil {
		return
	}
	for _, e := range entries {
		if name := e.Name(); isBellName(name) && !keep[name] {
			_ = os.Remove(filepath.Join(s.bells.dir, name))
		}
	}
}
