package store

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Doc implements stick.Tx.Doc.
func (t *tx) Doc(roomID string, version int64) (stick.Document, bool, error) {
	q := `SELECT room_id, version, author, op, size, event_seq, created_at, content
		FROM doc_versions WHERE room_id = ? AND version = ?`
	args := []any{roomID, version}
	if version == 0 {
		q = `SELECT v.room_id, v.version, v.author, v.op, v.size, v.event_seq, v.created_at, v.content
			FROM docs d JOIN doc_versions v ON v.room_id = d.room_id AND v.version = d.version WHERE d.room_id = ?`
		args = args[:1]
	}
	var d stick.Document
	found := false
	err := sqlitex.Execute(t.conn, q, &sqlitex.ExecOptions{Args: args, ResultFunc: func(st *sqlite.Stmt) error {
		d.DocVersion = docVersion(st)
		d.Content = st.ColumnText(7)
		found = true
		return nil
	}})
	return d, found, err
}

// SaveDoc implements stick.Tx.SaveDoc. Besides the version, it brings the
// document's paragraphs (stick.Paragraphs) in doc_chunks up to date: only
// paragraphs that appeared are added and only those that went are
// removed, so the search index does work in proportion to the change, not
// to the document.
func (t *tx) SaveDoc(d stick.Document) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	err := sqlitex.Execute(t.conn, `INSERT INTO doc_versions (room_id, version, content, size, author, op, event_seq, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, &sqlitex.ExecOptions{Args: []any{
		d.RoomID, d.Version, d.Content, len(d.Content), d.Author, string(d.Op), d.EventSeq, ms(d.CreatedAt),
	}})
	if err != nil {
		return err
	}
	err = sqlitex.Execute(t.conn, `INSERT INTO docs (room_id, version, updated_by, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (room_id) DO UPDATE SET version = excluded.version, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
		&sqlitex.ExecOptions{Args: []any{d.RoomID, d.Version, d.Author, ms(d.CreatedAt)}})
	if err != nil {
		return err
	}
	stored := map[string][]int64{} // hash of section and text -> chunk ids
	err = sqlitex.Execute(t.conn, "SELECT chunk_id, hash FROM doc_chunks WHERE room_id = ?", &sqlitex.ExecOptions{
		Args: []any{d.RoomID}, ResultFunc: func(st *sqlite.Stmt) error {
			h := st.ColumnText(1)
			stored[h] = append(stored[h], st.ColumnInt64(0))
			return nil
		}})
	if err != nil {
		return err
	}
	for _, p := range stick.Paragraphs(d.Content) {
		sum := sha256.Sum256([]byte(p.Section + "\x00" + p.Text))
		hash := hex.EncodeToString(sum[:12])
		if ids := stored[hash]; len(ids) > 0 {
			stored[hash] = ids[1:]
			continue
		}
		err := sqlitex.Execute(t.conn, "INSERT INTO doc_chunks (room_id, hash, section, content, author) VALUES (?, ?, ?, ?, ?)",
			&sqlitex.ExecOptions{Args: []any{d.RoomID, hash, p.Section, p.Text, d.Author}})
		if err != nil {
			return err
		}
	}
	for _, ids := range stored {
		for _, id := range ids {
			if err := sqlitex.Execute(t.conn, "DELETE FROM doc_chunks WHERE chunk_id = ?", &sqlitex.ExecOptions{Args: []any{id}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// DocHistory implements stick.Tx.DocHistory.
func (t *tx) DocHistory(roomID string) ([]stick.DocVersion, error) {
	var out []stick.DocVersion
	err := sqlitex.Execute(t.conn, `SELECT room_id, version, author, op, size, event_seq, created_at
		FROM doc_versions WHERE room_id = ? ORDER BY version`, &sqlitex.ExecOptions{Args: []any{roomID},
		ResultFunc: func(st *sqlite.Stmt) error {
			out = append(out, docVersion(st))
			return nil
		}})
	return out, err
}

func docVersion(st *sqlite.Stmt) stick.DocVersion {
	return stick.DocVersion{RoomID: st.ColumnText(0), Version: st.ColumnInt64(1), Author: st.ColumnText(2),
		Op: stick.DocOp(st.ColumnText(3)), Size: st.ColumnInt(4), EventSeq: st.ColumnInt64(5), CreatedAt: colTime(st, 6)}
}
