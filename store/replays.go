package store

import (
	"time"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Replay implements stick.Tx.Replay.
func (t *tx) Replay(key string) (stick.Replay, bool, error) {
	var r stick.Replay
	found := false
	err := sqlitex.Execute(t.conn, "SELECT request, answer, kept_at FROM replays WHERE replay_key = ?",
		&sqlitex.ExecOptions{Args: []any{key}, ResultFunc: func(st *sqlite.Stmt) error {
			found = true
			answer := make([]byte, st.ColumnLen(1))
			st.ColumnBytes(1, answer)
			r = stick.Replay{Key: key, Request: st.ColumnText(0), Answer: answer, At: time.UnixMilli(st.ColumnInt64(2))}
			return nil
		}})
	return r, found, err
}

// KeepReplay implements stick.Tx.KeepReplay.
func (t *tx) KeepReplay(r stick.Replay, expireBefore time.Time) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	if err := sqlitex.Execute(t.conn, "DELETE FROM replays WHERE kept_at < ?",
		&sqlitex.ExecOptions{Args: []any{ms(expireBefore)}}); err != nil {
		return err
	}
	answer := r.Answer
	if answer == nil {
		answer = []byte{}
	}
	return sqlitex.Execute(t.conn, "INSERT OR REPLACE INTO replays (replay_key, request, answer, kept_at) VALUES (?, ?, ?, ?)",
		&sqlitex.ExecOptions{Args: []any{r.Key, r.Request, answer, ms(r.At)}})
}
