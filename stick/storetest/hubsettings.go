package storetest

import (
	"github.com/stickhq/stick/stick"
)

var hubSettingsCases = []testCase{
	{"SaveAndRead", testHubSettingsSave},
	{"RollbackAndView", testHubSettingsRollback},
}

// hubSettings reads the hub's settings on s.
func hubSettings(e *env, s stick.Store) stick.HubSettings {
	e.t.Helper()
	var out stick.HubSettings
	e.view(s, func(tx stick.Tx) error {
		var err error
		out, err = tx.HubSettings()
		return err
	})
	return out
}

// A store that never saved settings has none; saved settings are read
// back as saved, from another handle too; saved again they replace the
// ones before, and a field saved as "" is no longer set.
func testHubSettingsSave(e *env) {
	if got := hubSettings(e, e.s); got != (stick.HubSettings{}) {
		e.t.Fatalf("HubSettings of an empty store: %+v", got)
	}
	other := e.handle()
	for _, want := range []stick.HubSettings{
		{PublicURL: "https://stick.example.com"},
		{PublicURL: "http://[::1]:7420/teams/o'brien/é"},
		{},
		{PublicURL: "https://again.example.com"},
	} {
		e.update(e.s, func(tx stick.Tx) error { return tx.SaveHubSettings(want) })
		for _, s := range []stick.Store{e.s, other} {
			if got := hubSettings(e, s); got != want {
				e.t.Fatalf("HubSettings after saving %+v: %+v", want, got)
			}
		}
	}
}

// Settings saved in an Update that fails are not stored; inside a View,
// SaveHubSettings fails.
func testHubSettingsRollback(e *env) {
	kept := stick.HubSettings{PublicURL: "https://kept.example.com"}
	e.update(e.s, func(tx stick.Tx) error { return tx.SaveHubSettings(kept) })
	err := e.s.Update(e.ctx, func(tx stick.Tx) error {
		if err := tx.SaveHubSettings(stick.HubSettings{PublicURL: "https://lost.example.com"}); err != nil {
			return err
		}
		if got, err := tx.HubSettings(); err != nil || got.PublicURL != "https://lost.example.com" {
			e.t.Errorf("an Update does not read its own settings: %+v %v", got, err)
		}
		return errRollback
	})
	if err == nil {
		e.t.Fatal("an update whose function failed returned nil")
	}
	if got := hubSettings(e, e.s); got != kept {
		e.t.Fatalf("settings saved in a rolled-back update were stored: %+v", got)
	}
	e.view(e.s, func(tx stick.Tx) error {
		if tx.SaveHubSettings(stick.HubSettings{}) == nil {
			e.t.Error("SaveHubSettings inside View succeeded; write methods must fail in a read transaction")
		}
		return nil
	})
	if got := hubSettings(e, e.s); got != kept {
		e.t.Fatalf("settings saved inside a View were stored: %+v", got)
	}
}
