package store

import (
	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// The keys of the hub_settings table.
const settingPublicURL = "public_url"

// HubSettings implements stick.Tx.HubSettings. A key this build does not
// know is left alone.
func (t *tx) HubSettings() (stick.HubSettings, error) {
	var out stick.HubSettings
	err := sqlitex.Execute(t.conn, "SELECT key, value FROM hub_settings", &sqlitex.ExecOptions{
		ResultFunc: func(st *sqlite.Stmt) error {
			if st.ColumnText(0) == settingPublicURL {
				out.PublicURL = st.ColumnText(1)
			}
			return nil
		}})
	return out, err
}

// SaveHubSettings implements stick.Tx.SaveHubSettings: a setting that is
// set is one row, one that is not has none.
func (t *tx) SaveHubSettings(s stick.HubSettings) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	for key, value := range map[string]string{settingPublicURL: s.PublicURL} {
		q, args := "DELETE FROM hub_settings WHERE key = ?", []any{key}
		if value != "" {
			q, args = "INSERT INTO hub_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", []any{key, value}
		}
		if err := sqlitex.Execute(t.conn, q, &sqlitex.ExecOptions{Args: args}); err != nil {
			return err
		}
	}
	return nil
}
