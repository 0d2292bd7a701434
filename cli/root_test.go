package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute(context.Background(), args, strings.NewReader(""), &out, &errb, "v1.2.3")
	return code, out.String(), errb.String()
}

func TestVersionHelpWhere(t *testing.T) {
	if code, out, _ := run(t, "version"); code != 0 || out != "stick v1.2.3\n" {
		t.Fatalf("version: %d %q", code, out)
	}
	if code, out, _ := run(t, "--version"); code != 0 || out != "stick v1.2.3\n" {
		t.Fatalf("--version: %d %q", code, out)
	}
	if code, out, _ := run(t, "--help"); code != 0 || !strings.Contains(out, "mcp") || !strings.Contains(out, "where") {
		t.Fatalf("help: %d %q", code, out)
	}
	dir := t.TempDir()
	t.Setenv("TALKING_STICK_DATA_DIR", dir)
	if code, out, _ := run(t, "where"); code != 0 || strings.TrimSpace(out) != filepath.Join(dir, "rooms.sqlite") {
		t.Fatalf("where: %d %q", code, out)
	}
	if code, _, errOut := run(t, "frobnicate"); code != 2 || !strings.Contains(errOut, "hint:") {
		t.Fatalf("unknown command: %d %q", code, errOut)
	}
}

func TestCLIWords(t *testing.T) {
	for in, want := range map[string]string{
		"join the room with join_path first":                                                "join the room with 'stick join' first",
		"release_stick with a handoff, then leave":                                          "'stick release' with a handoff, then leave",
		"heartbeat_interval_ms (7200000) must be shorter than owner_lease_ttl_ms (2700000)": "--heartbeat (7200000) must be shorter than --lease (2700000)",
		`context_path "/tmp/exp/close_room_list_rooms" does not exist`:                      `path "/tmp/exp/close_room_list_rooms" does not exist`,
		"wait with wait_for_turn; you may take over":                                        "wait with 'stick wait'; you may take over",
		"agent my_join_path_bot left":                                                       "agent my_join_path_bot left",
		"(see get_room_events), or leave reply_to out":                                      "(see 'stick events'), or leave --reply-to out",
		"list_rooms join_path":                                                              "'stick list' 'stick join'",
		"/data/join_path x-join_path join_path2":                                            "/data/join_path x-join_path join_path2",
	} {
		if got := cliWords(in); got != want {
			t.Errorf("cliWords(%q) = %q, want %q", in, got, want)
		}
	}
}
