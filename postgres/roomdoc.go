package postgres

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/stick"
)

const docVersionCols = `room_id, version, author, op, size, event_seq, created_at`

// Doc implements stick.Tx.Doc. Every version is stored whole.
func (t *tx) Doc(roomID string, version int64) (stick.Document, bool, error) {
	q := "SELECT " + docVersionCols + ", content FROM doc_versions WHERE room_id = $1 AND version = $2"
	args := []any{roomID, version}
	if version == 0 {
		q = "SELECT v.room_id, v.version, v.author, v.op, v.size, v.event_seq, v.created_at, d.content " +
			"FROM docs d JOIN doc_versions v ON v.room_id = d.room_id AND v.version = d.version WHERE d.room_id = $1"
		args = args[:1]
	}
	var d stick.Document
	var op string
	var created int64
	err := t.queryRow(q, args...).Scan(&d.RoomID, &d.Version, &d.Author, &op, &d.Size, &d.EventSeq, &created, &d.Content)
	if err == pgx.ErrNoRows {
		return stick.Document{}, false, nil
	}
	if err != nil {
		return stick.Document{}, false, err
	}
	d.Op, d.CreatedAt = stick.DocOp(op), tm(&created)
	return d, true, nil
}

// SaveDoc implements stick.Tx.SaveDoc. Besides the version, it brings the
// document's paragraphs (stick.Paragraphs) and their search entries up to
// date: only the paragraphs that appeared are added and only those that
// went are removed.
func (t *tx) SaveDoc(d stick.Document) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	if err := t.later(nil, "INSERT INTO doc_versions ("+docVersionCols+", content) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
		d.RoomID, d.Version, d.Author, string(d.Op), len(d.Content), d.EventSeq, ms(d.CreatedAt), d.Content); err != nil {
		return err
	}
	if err := t.later(nil, `INSERT INTO docs (room_id, version, content, updated_by, updated_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (room_id) DO UPDATE SET version = excluded.version, content = excluded.content,
			updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
		d.RoomID, d.Version, d.Content, d.Author, ms(d.CreatedAt)); err != nil {
		return err
	}
	stored := map[string][]int64{}
	rows, err := t.query("SELECT chunk_id, hash FROM doc_chunks WHERE room_id = $1", d.RoomID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		var h string
		if err := rows.Scan(&id, &h); err != nil {
			rows.Close()
			return err
		}
		stored[h] = append(stored[h], id)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, p := range stick.Paragraphs(d.Content) {
		sum := sha256.Sum256([]byte(p.Section + "\x00" + p.Text))
		hash := hex.EncodeToString(sum[:12])
		if ids := stored[hash]; len(ids) > 0 {
			stored[hash] = ids[1:]
			continue
		}
		var id int64
		if err := t.queryRow("INSERT INTO doc_chunks (room_id, hash, section, content, author) VALUES ($1, $2, $3, $4, $5) RETURNING chunk_id",
			d.RoomID, hash, p.Section, p.Text, d.Author).Scan(&id); err != nil {
			return err
		}
		if err := t.index(-id, d.RoomID, stick.DocumentHit, d.Author, p.Text); err != nil {
			return err
		}
	}
	for _, ids := range stored {
		for _, id := range ids {
			if err := t.later(nil, "DELETE FROM doc_chunks WHERE chunk_id = $1", id); err != nil {
				return err
			}
			if err := t.later(nil, "DELETE FROM search_entries WHERE entry_id = $1", -id); err != nil {
				return err
			}
		}
	}
	return nil
}

// DocHistory implements stick.Tx.DocHistory.
func (t *tx) DocHistory(roomID string) ([]stick.DocVersion, error) {
	rows, err := t.query("SELECT "+docVersionCols+" FROM doc_versions WHERE room_id = $1 ORDER BY version", roomID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []stick.DocVersion
	for rows.Next() {
		var v stick.DocVersion
		var op string
		var created int64
		if err := rows.Scan(&v.RoomID, &v.Version, &v.Author, &op, &v.Size, &v.EventSeq, &created); err != nil {
			return nil, err
		}
		v.Op, v.CreatedAt = stick.DocOp(op), tm(&created)
		out = append(out, v)
	}
	return out, rows.Err()
}
