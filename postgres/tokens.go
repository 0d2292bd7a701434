package postgres

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stickhq/stick/stick"
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
	err = t.later(nil, "INSERT INTO tokens ("+tokenCols+", secret_hash) VALUES ("+placeholders(1, 9)+")",
		tok.ID, tok.Name, string(tok.Role), string(rooms), ms(tok.CreatedAt),
		nullTime(tok.ExpiresAt), nullTime(tok.RevokedAt), nullTime(tok.LastUsedAt), hash[:])
	return err
}

// TokenByHash implements stick.Tx.TokenByHash.
func (t *tx) TokenByHash(hash stick.TokenHash) (stick.Token, bool, error) {
	toks, err := t.tokens("SELECT "+tokenCols+" FROM tokens WHERE secret_hash = $1", hash[:])
	if err != nil || len(toks) == 0 {
		return stick.Token{}, false, err
	}
	return toks[0], true, nil
}

// Tokens implements stick.Tx.Tokens.
func (t *tx) Tokens() ([]stick.Token, error) {
	return t.tokens("SELECT " + tokenCols + " FROM tokens ORDER BY token_seq")
}

// SaveToken implements stick.Tx.SaveToken.
func (t *tx) SaveToken(tok stick.Token) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	return t.later(func(tag pgconn.CommandTag) error {
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("save token %s: no such token", tok.ID)
		}
		return nil
	}, "UPDATE tokens SET revoked_at = $1, last_used_at = $2 WHERE token_id = $3",
		nullTime(tok.RevokedAt), nullTime(tok.LastUsedAt), tok.ID)
}

func (t *tx) tokens(q string, args ...any) ([]stick.Token, error) {
	rows, err := t.query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []stick.Token
	for rows.Next() {
		var tok stick.Token
		var role, rooms string
		var created int64
		var expires, revoked, used *int64
		if err := rows.Scan(&tok.ID, &tok.Name, &role, &rooms, &created, &expires, &revoked, &used); err != nil {
			return nil, err
		}
		tok.Role, tok.CreatedAt, tok.ExpiresAt, tok.RevokedAt, tok.LastUsedAt = stick.AccessRole(role), tm(&created), tm(expires), tm(revoked), tm(used)
		if err := json.Unmarshal([]byte(rooms), &tok.Rooms); err != nil {
			return nil, fmt.Errorf("token %s: its rooms are not a JSON scope: %w", tok.ID, err)
		}
		out = append(out, tok)
	}
	return out, rows.Err()
}

// Replay implements stick.Tx.Replay.
func (t *tx) Replay(key string) (stick.Replay, bool, error) {
	r := stick.Replay{Key: key}
	var at int64
	err := t.queryRow("SELECT request, answer, kept_at FROM replays WHERE replay_key = $1", key).Scan(&r.Request, &r.Answer, &at)
	if err == pgx.ErrNoRows {
		return stick.Replay{}, false, nil
	}
	if err != nil {
		return stick.Replay{}, false, err
	}
	r.At = time.UnixMilli(at)
	return r, true, nil
}

// KeepReplay implements stick.Tx.KeepReplay.
func (t *tx) KeepReplay(r stick.Replay, expireBefore time.Time) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	if err := t.later(nil, "DELETE FROM replays WHERE kept_at < $1", ms(expireBefore)); err != nil {
		return err
	}
	answer := r.Answer
	if answer == nil {
		answer = []byte{}
	}
	err := t.later(nil, `INSERT INTO replays (replay_key, request, answer, kept_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (replay_key) DO UPDATE SET request = excluded.request, answer = excluded.answer, kept_at = excluded.kept_at`,
		r.Key, r.Request, answer, ms(r.At))
	return err
}

// settingPublicURL is the hub_settings key of HubSettings.PublicURL.
const settingPublicURL = "public_url"

// HubSettings implements stick.Tx.HubSettings. A key this build does not
// know is left alone.
func (t *tx) HubSettings() (stick.HubSettings, error) {
	var out stick.HubSettings
	var v string
	err := t.queryRow("SELECT value FROM hub_settings WHERE key = $1", settingPublicURL).Scan(&v)
	if err == pgx.ErrNoRows {
		return out, nil
	}
	out.PublicURL = v
	return out, err
}

// SaveHubSettings implements stick.Tx.SaveHubSettings: a setting that is
// set is one row, one that is not has none.
func (t *tx) SaveHubSettings(s stick.HubSettings) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	for key, value := range map[string]string{settingPublicURL: s.PublicURL} {
		var err error
		if value == "" {
			err = t.later(nil, "DELETE FROM hub_settings WHERE key = $1", key)
		} else {
			err = t.later(nil, "INSERT INTO hub_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
