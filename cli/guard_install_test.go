package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Claude Code's settings as a person keeps them: other keys, and a Stop
// hook of their own.
const userSettings = `{
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "check-bash"}]
      }
    ]
  },
  "permissions": {"allow": ["Bash(go test:*)"]}
}
`

// The stop guard is merged into Claude Code's settings beside the
// person's own hooks and keys, once; --dry-run and --no-guard leave the
// file alone; uninstall gives the original bytes back.
func TestInstallStopGuard(t *testing.T) {
	m := newMachine(t, "claude", "stick")
	s := filepath.Join(m.bin, "stick")
	settings := filepath.Join(m.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := run(t, "install", "claude-code", "--no-guard")
	if code != 0 || out != lines("claude-code: installed (claude mcp add --scope user stick -- "+s+" mcp)") || readFile(t, settings) != userSettings {
		t.Fatalf("--no-guard: %d %q %q", code, out, errOut)
	}
	code, out, _ = run(t, "install", "claude-code", "--dry-run")
	if code != 0 || !strings.Contains(out, guardLine(m, "would install")) || readFile(t, settings) != userSettings {
		t.Fatalf("--dry-run: %d %q", code, out)
	}

	code, out, errOut = run(t, "install", "claude-code")
	if code != 0 || out != lines("claude-code: already installed ("+s+" mcp)", guardLine(m, "installed")) {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	want := strings.Replace(userSettings, `            "command": "notify-send done"
          }
        ]
      }
    ],`, `            "command": "notify-send done"
          }
        ]
      },
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "`+s+` hook stop"
          }
        ]
      }
    ],`, 1)
	installed := readFile(t, settings)
	if installed != want {
		t.Fatalf("settings after install:\n%s\nwant:\n%s", installed, want)
	}
	if fi, err := os.Stat(settings); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the settings' mode changed: %v %v", fi.Mode(), err)
	}

	code, out, _ = run(t, "install", "claude-code")
	if code != 0 || out != lines("claude-code: already installed ("+s+" mcp)", guardLine(m, "already installed")) || readFile(t, settings) != installed {
		t.Fatalf("second install: %d %q", code, out)
	}

	code, out, _ = run(t, "uninstall", "claude-code", "--dry-run")
	if code != 0 || !strings.Contains(out, guardLine(m, "would uninstall")) || readFile(t, settings) != installed {
		t.Fatalf("uninstall --dry-run: %d %q", code, out)
	}
	code, out, _ = run(t, "uninstall", "claude-code")
	if code != 0 || out != lines("claude-code: uninstalled (claude mcp remove --scope user stick)", guardLine(m, "uninstalled")) {
		t.Fatalf("uninstall: %d %q", code, out)
	}
	if got := readFile(t, settings); got != userSettings {
		t.Fatalf("settings after uninstall:\n%s\nwant the original:\n%s", got, userSettings)
	}
}

// Without settings, install writes a file with the guard alone, and
// uninstall removes that file; settings stick cannot read are refused
// and left as they are.
func TestInstallStopGuardNewAndBroken(t *testing.T) {
	m := newMachine(t, "claude", "stick")
	s := filepath.Join(m.bin, "stick")
	settings := filepath.Join(m.home, ".claude", "settings.json")
	if code, out, errOut := run(t, "install", "claude-code"); code != 0 || !strings.Contains(out, guardLine(m, "installed")) {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	if got, want := readFile(t, settings), `{
  "hooks": {
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "`+s+` hook stop"
          }
        ]
      }
    ]
  }
}
`; got != want {
		t.Fatalf("new settings:\n%s\nwant:\n%s", got, want)
	}
	if code, out, _ := run(t, "uninstall", "claude-code"); code != 0 || !strings.Contains(out, guardLine(m, "uninstalled")) {
		t.Fatalf("uninstall: %d %q", code, out)
	}
	mustNotExist(t, settings)

	for _, broken := range []string{"{\"model\": \"opus\",, }\n", "{\"hooks\": []}\n", "{\"hooks\": {\"Stop\": {}}}\n"} {
		if err := os.WriteFile(settings, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run(t, "install", "claude-code")
		if code != 1 || !strings.Contains(out, "claude-code stop guard: failed (") ||
			!strings.HasPrefix(errOut, "stick: harness_error: install failed for claude-code: ") || !strings.Contains(errOut, "fix the JSON of "+settings) {
			t.Fatalf("broken settings %q: %d %q %q", broken, code, out, errOut)
		}
		if readFile(t, settings) != broken {
			t.Fatalf("broken settings %q were changed", broken)
		}
	}
}
