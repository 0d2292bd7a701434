package storetest

import (
	"bytes"

	"github.com/stickhq/stick/stick"
)

var replayCases = []testCase{
	{"KeepAndFind", testReplayFind},
	{"ReplaceAndExpire", testReplayExpire},
	{"RollbackAndView", testReplayRollback},
}

// findReplay reads the replay kept under key on s.
func findReplay(e *env, s stick.Store, key string) (stick.Replay, bool) {
	e.t.Helper()
	var r stick.Replay
	var ok bool
	e.view(s, func(tx stick.Tx) error {
		var err error
		r, ok, err = tx.Replay(key)
		return err
	})
	return r, ok
}

// A kept answer is found under its key, byte for byte (an empty one and
// one of every byte value too), from another handle as well; another key
// finds nothing.
func testReplayFind(e *env) {
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	kept := []stick.Replay{
		{Key: "k1", Request: "POST /api/v1/rooms/r1/release 9f2a", Answer: []byte(`{"ok":true}`), At: at(1)},
		{Key: "k2", Request: "tools/call pass 00", Answer: []byte{}, At: at(2)},
		{Key: "k3", Request: "x", Answer: every, At: at(3)},
	}
	e.update(e.s, func(tx stick.Tx) error {
		for _, r := range kept {
			if err := tx.KeepReplay(r, at(0)); err != nil {
				return err
			}
		}
		return nil
	})
	other := e.handle()
	for _, want := range kept {
		for _, s := range []stick.Store{e.s, other} {
			got, ok := findReplay(e, s, want.Key)
			if !ok {
				e.t.Fatalf("Replay(%q) found nothing", want.Key)
			}
			if got.Key != want.Key || got.Request != want.Request || !bytes.Equal(got.Answer, want.Answer) || !got.At.Equal(want.At) {
				e.t.Errorf("Replay(%q) = %+v, want %+v", want.Key, got, want)
			}
		}
	}
	if got, ok := findReplay(e, e.s, "k4"); ok {
		e.t.Errorf("Replay of a key never kept found %+v", got)
	}
}

// Keeping under a key replaces what was kept under it; a keep forgets
// every answer kept before its expireBefore, and only those.
func testReplayExpire(e *env) {
	keep := func(r stick.Replay, expireBefore int) {
		e.update(e.s, func(tx stick.Tx) error { return tx.KeepReplay(r, at(expireBefore)) })
	}
	keep(stick.Replay{Key: "old", Request: "a", Answer: []byte("1"), At: at(1)}, 0)
	keep(stick.Replay{Key: "mid", Request: "b", Answer: []byte("2"), At: at(5)}, 0)
	keep(stick.Replay{Key: "mid", Request: "c", Answer: []byte("3"), At: at(6)}, 0)
	if got, _ := findReplay(e, e.s, "mid"); got.Request != "c" || string(got.Answer) != "3" {
		e.t.Errorf("a replay kept again under its key reads %+v, want the second", got)
	}
	keep(stick.Replay{Key: "new", Request: "d", Answer: []byte("4"), At: at(10)}, 5)
	if _, ok := findReplay(e, e.s, "old"); ok {
		e.t.Error("a replay kept before expireBefore was not forgotten")
	}
	for _, k := range []string{"mid", "new"} {
		if _, ok := findReplay(e, e.s, k); !ok {
			e.t.Errorf("replay %q, kept at or after expireBefore, was forgotten", k)
		}
	}
}

// A replay kept in an Update that fails is not kept; inside a View,
// KeepReplay fails.
func testReplayRollback(e *env) {
	r := stick.Replay{Key: "lost", Request: "a", Answer: []byte("1"), At: at(1)}
	err := e.s.Update(e.ctx, func(tx stick.Tx) error {
		if err := tx.KeepReplay(r, at(0)); err != nil {
			return err
		}
		return errRollback
	})
	if err == nil {
		e.t.Fatal("an update whose function failed returned nil")
	}
	if _, ok := findReplay(e, e.s, "lost"); ok {
		e.t.Error("a replay kept in a rolled-back update was kept")
	}
	e.view(e.s, func(tx stick.Tx) error {
		if tx.KeepReplay(r, at(0)) == nil {
			e.t.Error("KeepReplay inside View succeeded; write methods must fail in a read transaction")
		}
		return nil
	})
}
