package stick_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// An answer kept by a principal's Service is found by it, byte for byte,
// and by no other principal's Service nor by the Service of no principal,
// under the same key; it is forgotten once its time to live has passed.
func TestReplaysBelongToTheirPrincipal(t *testing.T) {
	e := newEnv(t)
	ana := e.svc.As(stick.Principal{TokenID: "tok_ana", Name: "ana", Role: stick.AccessAgent})
	bob := e.svc.As(stick.Principal{TokenID: "tok_bob", Name: "bob", Role: stick.AccessAgent})
	r := stick.Replay{Key: "k", Request: "POST /x", Answer: []byte(`{"ok":true}`)}
	if err := ana.KeepReplay(e.ctx, r, time.Hour); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ana.FindReplay(e.ctx, "k", time.Hour)
	if err != nil || !ok || got.Key != "k" || got.Request != r.Request || string(got.Answer) != string(r.Answer) || got.At.IsZero() {
		t.Fatalf("FindReplay by its principal = %+v, %v, %v", got, ok, err)
	}
	for name, s := range map[string]*stick.Service{"another principal's": bob, "no principal's": e.svc} {
		if got, ok, err := s.FindReplay(e.ctx, "k", time.Hour); ok || err != nil {
			t.Errorf("FindReplay by %s Service = %+v, %v, %v; want nothing", name, got, ok, err)
		}
	}
	e.clock.Advance(2 * time.Hour)
	if err := ana.KeepReplay(e.ctx, stick.Replay{Key: "later", Request: "POST /y"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := ana.FindReplay(e.ctx, "k", time.Hour); ok {
		t.Error("an answer kept longer than its time to live is still found")
	}
	for _, key := range []string{"", string(make([]byte, stick.MaxReplayKeyLen+1))} {
		if err := ana.KeepReplay(e.ctx, stick.Replay{Key: key}, time.Hour); stick.ErrorCode(err) != stick.CodeInvalidArgument {
			t.Errorf("KeepReplay with a key of %d bytes: %v, want invalid_argument", len(key), err)
		}
	}
}
