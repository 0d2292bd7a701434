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
	code := Execute(context.Background(), LocalWiring(), args, strings.NewReader(""), &out, &errb, "v1.2.3")
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
		"join the room with join_path first":                                                 "join the room with 'stick join' first",
		"release_stick with a handoff, then leave":                                           "'stick release' with a handoff, then leave",
		"heartbeat_interval_ms (7200000ms) must be shorter than owner_lease_ttl_ms (1000ms)": "--heartbeat (2h) must be shorter than --lease (1s)",
		"claim_ttl_ms must be between 100ms and 2592000000ms, got 5ms":                       "--claim must be between 100ms and 720h, got 5ms",
		"must not be negative (0 resets it to the default), got -300000ms":                   "must not be negative (0 resets it to the default), got -5m",
		"a 5400000ms wait; file /tmp/x300ms and id a_10ms stay":                              "a 1h30m wait; file /tmp/x300ms and id a_10ms stay",
		`context_path "/tmp/exp/close_room_list_rooms" does not exist`:                       `path "/tmp/exp/close_room_list_rooms" does not exist`,
		"wait with wait_for_turn; you may take over":                                         "wait with 'stick wait'; you may take over",
		"agent my_join_path_bot left":                                                        "agent my_join_path_bot left",
		"(see get_room_events), or leave reply_to out":                                       "(see 'stick events'), or leave --reply-to out",
		"list_rooms join_path":                                                               "'stick list' 'stick join'",
		"/data/join_path x-join_path join_path2":                                             "/data/join_path x-join_path join_path2",
		"read the document again (read_room_doc), merge, then update_room_doc":               "read the document again ('stick doc'), merge, then 'stick doc edit'",
		"list the versions with room_doc_history; add with append_room_doc":                  "list the versions with 'stick doc history'; add with 'stick doc append'",
		"find it with search_events":                                                         "find it with 'stick search'",
	} {
		if got := cliWords(in); got != want {
			t.Errorf("cliWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every command has a place in 'stick --help': one of the groups, or the
// few housekeeping commands listed after them.
func TestHelpGroups(t *testing.T) {
	root := newRoot("v1.2.3")
	groupCommands(root)
	housekeeping := map[string]bool{"version": true, "where": true, "help": true, "completion": true, "guardian": true}
	for _, c := range root.Commands() {
		if c.GroupID == "" && !housekeeping[c.Name()] && !c.Hidden {
			t.Errorf("command %q is in no help group", c.Name())
		}
		if c.Example == "" && !c.Hidden && !housekeeping[c.Name()] {
			t.Errorf("command %q has no example", c.Name())
		}
		for _, sub := range c.Commands() {
			if sub.Example == "" && !sub.Hidden && sub.Name() != "help" && c.Name() != "completion" {
				t.Errorf("command %q %q has no example", c.Name(), sub.Name())
			}
		}
	}
	code, out, _ := run(t, "--help")
	if code != 0 {
		t.Fatal(out)
	}
	_, additional, _ := strings.Cut(out, "Additional Commands:\n")
	additional, _, _ = strings.Cut(additional, "\n\n")
	var names []string
	for _, l := range strings.Split(additional, "\n") {
		names = append(names, strings.Fields(l)[0])
	}
	if strings.Join(names, " ") != "version where completion help" {
		t.Errorf("Additional Commands of stick --help: %v", names)
	}
	for _, want := range []string{"Share what you know:\n  note ", "\n  doc ", "\n  search ", "\n  export "} {
		if !strings.Contains(out, want) {
			t.Errorf("stick --help lacks %q:\n%s", want, out)
		}
	}
}

// The path arguments complete files; 'stick doc' also completes its
// subcommands, and export --format its two formats.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"doc", ""}, "edit\tEdit the room's document"},
		{[]string{"doc", "hi"}, "history\t"},
		{[]string{"doc", "somewhere/"}, ":0\n"}, // files
		{[]string{"doc", ".", ""}, ":4\n"},      // nothing after the path
		{[]string{"doc", "edit", ""}, ":0\n"},
		{[]string{"doc", "history", ""}, ":0\n"},
		{[]string{"export", ""}, ":0\n"},
		{[]string{"export", "--format", ""}, "markdown\njson\n:4\n"},
		{[]string{"search", ""}, ":4\n"},
		{[]string{"doc", "append", ""}, ":4\n"},
	} {
		code, out, _ := run(t, append([]string{"__complete"}, tc.args...)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("completion of %q: %d %q, want %q in it", tc.args, code, out, tc.want)
		}
	}
}
