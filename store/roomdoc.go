package store

import (
	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Doc implements stick.Tx.Doc.
func (t *tx) Doc(roomID string, version int64) (stick.Document, bool, error) {
	q := `SELECT room_id, version, author, op, length(CAST(content AS BLOB)), event_seq, created_at, content
		FROM doc_versions WHERE room_id = ? AND version = ?`
	args := []any{roomID, version}
	if version == 0 {
		q = `SELECT v.room_id, v.version, v.author, v.op, length(CAST(v.content AS BLOB)), v.event_seq, v.created_at, v.content
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

// SaveDoc implements stick.Tx.SaveDoc.
func (t *tx) SaveDoc(d stick.Document) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	err := sqlitex.Execute(t.conn, `INSERT INTO doc_versions (room_id, version, content, author, op, event_seq, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, &sqlitex.ExecOptions{Args: []any{
		d.RoomID, d.Version, d.Content, d.Author, string(d.Op), d.EventSeq, ms(d.CreatedAt),
	}})
	if err != nil {
		return err
	}
	return sqlitex.Execute(t.conn, `INSERT INTO docs (room_id, version, content, updated_by, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (room_id) DO UPDATE SET version = excluded.version, content = excluded.content,
			updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
		&sqlitex.ExecOptions{Args: []any{d.RoomID, d.Version, d.Content, d.Author, ms(d.CreatedAt)}})
}

// DocHistory implements stick.Tx.DocHistory.
func (t *tx) DocHistory(roomID string) ([]stick.DocVersion, error) {
	var out []stick.DocVersion
	err := sqlitex.Execute(t.conn, `SELECT room_id, version, author, op, length(CAST(content AS BLOB)), event_seq, created_at
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
