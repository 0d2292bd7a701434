package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Document versions are stored as deltas: a version with delta = 1 is
// the version before it with its middle replaced, keeping keep_head bytes
// of its start and keep_tail bytes of its end, and content in between. A
// version is stored whole every snapshotEvery versions, and whenever its
// delta would not be much smaller, so a version is rebuilt from at most
// snapshotEvery rows. The current version is also whole in docs.
const snapshotEvery = 32

// Doc implements stick.Tx.Doc.
func (t *tx) Doc(roomID string, version int64) (stick.Document, bool, error) {
	if version == 0 {
		var d stick.Document
		found := false
		err := sqlitex.Execute(t.conn, `SELECT v.room_id, v.version, v.author, v.op, v.size, v.event_seq, v.created_at, d.content
			FROM docs d JOIN doc_versions v ON v.room_id = d.room_id AND v.version = d.version WHERE d.room_id = ?`,
			&sqlitex.ExecOptions{Args: []any{roomID}, ResultFunc: func(st *sqlite.Stmt) error {
				d.DocVersion, d.Content, found = docVersion(st), st.ColumnText(7), true
				return nil
			}})
		return d, found, err
	}
	var d stick.Document
	found := false
	var b strings.Builder
	err := sqlitex.Execute(t.conn, `SELECT room_id, version, author, op, size, event_seq, created_at, content, delta, keep_head, keep_tail
		FROM doc_versions WHERE room_id = ?1 AND version <= ?2 AND version >= (
			SELECT max(version) FROM doc_versions WHERE room_id = ?1 AND version <= ?2 AND delta = 0)
		ORDER BY version`, &sqlitex.ExecOptions{Args: []any{roomID, version}, ResultFunc: func(st *sqlite.Stmt) error {
		d.DocVersion = docVersion(st)
		found = d.Version == version
		if st.ColumnInt(8) == 0 {
			d.Content = st.ColumnText(7)
			return nil
		}
		head, tail := st.ColumnInt(9), st.ColumnInt(10)
		if head+tail > len(d.Content) {
			return fmt.Errorf("document version %d of room %s keeps %d+%d bytes of a %d-byte version", d.Version, roomID, head, tail, len(d.Content))
		}
		b.Reset()
		b.WriteString(d.Content[:head])
		b.WriteString(st.ColumnText(7))
		b.WriteString(d.Content[len(d.Content)-tail:])
		d.Content = b.String()
		return nil
	}})
	if err == nil && found && len(d.Content) != d.Size {
		err = fmt.Errorf("document version %d of room %s rebuilt to %d bytes, not %d", version, roomID, len(d.Content), d.Size)
	}
	return d, found, err
}

// delta returns how much of the start and the end of old new keeps, and
// what it has in between, cut at character boundaries.
func delta(old, new string) (head, tail int, middle string) {
	for head < len(old) && head < len(new) && old[head] == new[head] {
		head++
	}
	for head > 0 && head < len(new) && !utf8.RuneStart(new[head]) {
		head--
	}
	for tail < len(old)-head && tail < len(new)-head && old[len(old)-1-tail] == new[len(new)-1-tail] {
		tail++
	}
	for tail > 0 && !utf8.RuneStart(new[len(new)-tail]) {
		tail--
	}
	return head, tail, new[head : len(new)-tail]
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
	kept, isDelta, head, tail := d.Content, 0, 0, 0
	if d.Version%snapshotEvery != 1 {
		prev, ok, err := t.Doc(d.RoomID, 0)
		if err != nil {
			return err
		}
		if h, tl, middle := delta(prev.Content, d.Content); ok && prev.Version == d.Version-1 && len(middle) < len(d.Content)/2 {
			kept, isDelta, head, tail = middle, 1, h, tl
		}
	}
	err := sqlitex.Execute(t.conn, `INSERT INTO doc_versions (room_id, version, content, delta, keep_head, keep_tail, size, author, op, event_seq, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, &sqlitex.ExecOptions{Args: []any{
		d.RoomID, d.Version, kept, isDelta, head, tail, len(d.Content), d.Author, string(d.Op), d.EventSeq, ms(d.CreatedAt),
	}})
	if err != nil {
		return err
	}
	err = sqlitex.Execute(t.conn, `INSERT INTO docs (room_id, version, content, updated_by, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (room_id) DO UPDATE SET version = excluded.version, content = excluded.content,
			updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
		&sqlitex.ExecOptions{Args: []any{d.RoomID, d.Version, d.Content, d.Author, ms(d.CreatedAt)}})
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
