package store

import (
	"encoding/json"
	"fmt"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

const tokenCols = `token_id, name, role, rooms_json, created_at, expires_at, revoked_at, last_used_at`

// CreateToken implements stick.Tx.CreateToken.
func (t *tx) CreateToken(tok stick.Token, hash stick.TokenHash) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	rooms, err := json.Marshal(tok.Rooms)
	if err != nil {
		return err
	}
	return sqlitex.Execute(t.conn, "INSERT INTO tokens ("+tokenCols+", secret_hash) VALUES (?,?,?,?,?,?,?,?,?)",
		&sqlitex.ExecOptions{Args: []any{
			tok.ID, tok.Name, string(tok.Role), string(rooms), ms(tok.CreatedAt),
			nullTime(tok.ExpiresAt), nullTime(tok.RevokedAt), nullTime(tok.LastUsedAt), hash[:],
		}})
}

// TokenByHash implements stick.Tx.TokenByHash.
func (t *tx) TokenByHash(hash stick.TokenHash) (stick.Token, bool, error) {
	toks, err := t.tokens("SELECT "+tokenCols+" FROM tokens WHERE secret_hash = ?", hash[:])
	if err != nil || len(toks) == 0 {
		return stick.Token{}, false, err
	}
	return toks[0], true, nil
}

// Tokens implements stick.Tx.Tokens.
func (t *tx) Tokens() ([]stick.Token, error) {
	return t.tokens("SELECT " + tokenCols + " FROM tokens ORDER BY rowid")
}

// SaveToken implements stick.Tx.SaveToken.
func (t *tx) SaveToken(tok stick.Token) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	err := sqlitex.Execute(t.conn, "UPDATE tokens SET revoked_at = ?, last_used_at = ? WHERE token_id = ?",
		&sqlitex.ExecOptions{Args: []any{nullTime(tok.RevokedAt), nullTime(tok.LastUsedAt), tok.ID}})
	if err == nil && t.conn.Changes() != 1 {
		return fmt.Errorf("save token %s: no such token", tok.ID)
	}
	return err
}

func (t *tx) tokens(q string, args ...any) ([]stick.Token, error) {
	var out []stick.Token
	err := sqlitex.Execute(t.conn, q, &sqlitex.ExecOptions{Args: args, ResultFunc: func(st *sqlite.Stmt) error {
		tok := stick.Token{
			ID: st.ColumnText(0), Name: st.ColumnText(1), Role: stick.AccessRole(st.ColumnText(2)),
			CreatedAt: colTime(st, 4), ExpiresAt: colTime(st, 5), RevokedAt: colTime(st, 6), LastUsedAt: colTime(st, 7),
		}
		if err := json.Unmarshal([]byte(st.ColumnText(3)), &tok.Rooms); err != nil {
			return fmt.Errorf("token %s: its rooms are not a JSON scope: %w", tok.ID, err)
		}
		out = append(out, tok)
		return nil
	}})
	return out, err
}
