package wake_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stickhq/stick/wake"
)

// secretToken is the inbox token of the tests: distinctive, so its absence
// from any output is meaningful.
const secretToken = "tok-7f3a9c2e51d04b86"

// env returns a getenv over vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars map[string]string
		want []string
	}{
		{"nothing set", nil, nil},
		{"claude code", map[string]string{
			"CLAUDE_CODE_MESSAGING_SOCKET": "/run/claude/s.sock",
			"CLAUDE_CODE_MESSAGING_TOKEN":  secretToken,
		}, []string{"claude-inbox /run/claude/s.sock (token set)"}},
		{"codex", map[string]string{"CODEX_THREAD_ID": "019a-thread"}, []string{"codex-queue 019a-thread"}},
		{"both, the inbox first", map[string]string{
			"CODEX_THREAD_ID":              "019a-thread",
			"CLAUDE_CODE_MESSAGING_SOCKET": "/run/claude/s.sock",
			"CLAUDE_CODE_MESSAGING_TOKEN":  secretToken,
		}, []string{"claude-inbox /run/claude/s.sock (token set)", "codex-queue 019a-thread"}},
		{"a socket without a token", map[string]string{"CLAUDE_CODE_MESSAGING_SOCKET": "/run/claude/s.sock"}, nil},
		{"a token without a socket", map[string]string{"CLAUDE_CODE_MESSAGING_TOKEN": secretToken}, nil},
		{"empty values", map[string]string{
			"CLAUDE_CODE_MESSAGING_SOCKET": "", "CLAUDE_CODE_MESSAGING_TOKEN": "", "CODEX_THREAD_ID": "",
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			regs := wake.FromEnv(env(tc.vars))
			var got []string
			for _, r := range regs {
				got = append(got, r.String())
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("FromEnv = %q, want %q", got, tc.want)
			}
			if tc.want == nil && regs != nil {
				t.Fatalf("FromEnv = %#v, want nil", regs)
			}
		})
	}
}

func TestRegistrationFields(t *testing.T) {
	regs := wake.FromEnv(env(map[string]string{
		"CLAUDE_CODE_MESSAGING_SOCKET": "/run/claude/s.sock",
		"CLAUDE_CODE_MESSAGING_TOKEN":  secretToken,
		"CODEX_THREAD_ID":              "019a-thread",
	}))
	if len(regs) != 2 {
		t.Fatalf("FromEnv = %v, want two registrations", regs)
	}
	if r := regs[0]; r.Transport != wake.ClaudeInbox || r.Address != "/run/claude/s.sock" || !r.Secret() {
		t.Errorf("inbox registration = %v (secret %v)", r, r.Secret())
	}
	if r := regs[1]; r.Transport != wake.CodexQueue || r.Address != "019a-thread" || r.Secret() {
		t.Errorf("codex registration = %v (secret %v)", r, r.Secret())
	}
}

// The token never shows, whatever prints, marshals or logs a registration,
// alone, by pointer, in a slice or in a struct's exported or unexported
// field.
func TestRegistrationNeverShowsToken(t *testing.T) {
	reg := wake.NewClaudeInbox("/run/claude/s.sock", secretToken)
	type outer struct {
		R wake.Registration
		r wake.Registration
	}
	values := []any{reg, &reg, []wake.Registration{reg}, outer{R: reg, r: reg}, &outer{R: reg, r: reg}, map[string]wake.Registration{"k": reg}}

	var outputs []string
	for _, v := range values {
		outputs = append(outputs,
			fmt.Sprintf("%v %+v %#v %s %q %x %X %d %T", v, v, v, v, v, v, v, v, v),
			fmt.Sprint(v), fmt.Sprintln(v))
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%T): %v", v, err)
		}
		outputs = append(outputs, string(b))
		var logs bytes.Buffer
		slog.New(slog.NewTextHandler(&logs, nil)).Info("wake", "reg", v)
		slog.New(slog.NewJSONHandler(&logs, nil)).Info("wake", "reg", v)
		outputs = append(outputs, logs.String())
	}
	outputs = append(outputs, reg.String(), reg.GoString())

	for _, out := range outputs {
		for _, form := range []string{secretToken, hex.EncodeToString([]byte(secretToken)), strings.ToUpper(hex.EncodeToString([]byte(secretToken)))} {
			if strings.Contains(out, form) {
				t.Errorf("the token shows in %q", out)
			}
		}
	}

	if got, want := fmt.Sprintf("%v", reg), "claude-inbox /run/claude/s.sock (token set)"; got != want {
		t.Errorf("%%v = %q, want %q", got, want)
	}
	if got, want := fmt.Sprintf("%#v", reg), `wake.Registration{Transport:"claude-inbox", Address:"/run/claude/s.sock" /* token set */}`; got != want {
		t.Errorf("%%#v = %q, want %q", got, want)
	}
	b, _ := json.Marshal(reg)
	if got, want := string(b), `{"transport":"claude-inbox","address":"/run/claude/s.sock","token_set":true}`; got != want {
		t.Errorf("json = %s, want %s", got, want)
	}
	b, _ = json.Marshal(wake.NewCodexQueue("019a-thread"))
	if got, want := string(b), `{"transport":"codex-queue","address":"019a-thread"}`; got != want {
		t.Errorf("json = %s, want %s", got, want)
	}
}

// Names gives the transports in the order they are tried, and no secret.
func TestNames(t *testing.T) {
	regs := wake.FromEnv(env(map[string]string{
		"CODEX_THREAD_ID": "019a-thread", "CLAUDE_CODE_MESSAGING_SOCKET": "/run/claude/s.sock", "CLAUDE_CODE_MESSAGING_TOKEN": secretToken,
	}))
	if got := wake.Names(regs); fmt.Sprint(got) != "[claude-inbox codex-queue]" {
		t.Fatalf("Names = %q", got)
	}
	if got := wake.Names(nil); len(got) != 0 {
		t.Fatalf("Names(nil) = %q", got)
	}
}
