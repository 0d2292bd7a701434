package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/procid"
)

// TestProxyClients: the proxies of the hub's scenarios take their token
// from the environment or from a file, as 'stick mcp --server' does, and
// a token the hub does not know is a refusal with its code, never a
// success a scenario would count; a harness's proxy forwards its calls,
// and exits by itself once its harness is SIGKILLed.
func TestProxyClients(t *testing.T) {
	ctx := context.Background()
	e, err := newEnv(t.TempDir(), Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	h, secrets, err := e.startHubWithTokens(ctx, "team")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = h.Close() }()
	join := map[string]any{"name": hubRoom}
	for _, c := range []struct {
		name   string
		inFile bool
	}{{"env", false}, {"file", true}} {
		stranger, err := e.dialProxy(ctx, "stranger-"+c.name, h.url, "stk_not_a_token", c.inFile)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stranger.call(ctx, "join_path", join); err == nil || !strings.Contains(err.Error(), "unauthenticated") {
			t.Errorf("%s: join with a wrong token: %v", c.name, err)
		}
		stranger.close()
		member, err := e.dialProxy(ctx, "member-"+c.name, h.url, secrets[0], c.inFile)
		if err != nil {
			t.Fatal(err)
		}
		if j, err := member.call(ctx, "join_path", join); err != nil || !strings.HasPrefix(j.RoomID, "room_") {
			t.Errorf("%s: join: %+v, %v", c.name, j, err)
		}
		member.close()
	}

	hs, err := e.dialHarness(ctx, "h000", "claude-code", h.url, secrets[0])
	if err != nil {
		t.Fatal(err)
	}
	defer hs.close()
	j, err := hs.call(ctx, "join_path", join)
	if err != nil {
		t.Fatal(err)
	}
	if err := awaitTurn(ctx, hs.mcpSession, j.RoomID); err != nil {
		t.Fatal(err)
	}
	if st := procid.Check(hs.proxy); st != procid.Alive || hs.proxy.PID == hs.cmd.Process.Pid {
		t.Fatalf("the harness's proxy %v: %v", hs.proxy, st)
	}
	if err := hs.kill(); err != nil {
		t.Fatal(err)
	}
	if !hs.proxyExited(10 * time.Second) {
		t.Errorf("the proxy still runs 10 s after its harness was killed%s", logNote(hs.log))
	}
	if err := h.stop(); err != nil {
		t.Error(err)
	}
}
