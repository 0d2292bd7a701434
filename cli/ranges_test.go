package cli

import (
	"strings"
	"testing"
)

// The CLI refuses what the library refuses, with its message in the CLI's
// words (the flag for the field): a note type that is neither known nor
// x-..., a search type that is no kind of hit, and numbers past their
// documented maximum; each is a usage error (exit 2) and changes nothing. A flag that is not
// a number at all is a usage error, exit 2.
func TestRangesAndEnumsRefused(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"note", "--path", s.repo, "--type", "questoin", "x"}, 2,
			`stick: invalid_argument: --type "questoin" is not a note type: use note, question, answer or decision, or a custom type that starts with "x-"`},
		{[]string{"note", "--path", s.repo, "--type", "ci-status", "x"}, 2, `stick: invalid_argument: --type "ci-status" is not a note type`},
		{[]string{"search", "x", "--type", "doc"}, 2,
			`stick: invalid_argument: type "doc" is not a kind of hit: use note, question, answer, decision, release, pass, close or document, or a custom note type (x-...)`},
		{[]string{"search", "x", "--type", "claim"}, 2, `stick: invalid_argument: type "claim" is not a kind of hit`},
		{[]string{"search", "x", "--limit", "201"}, 2, "stick: invalid_argument: limit must be between 0 (the default, 20) and 200, got 201"},
		{[]string{"events", s.repo, "--limit", "1001"}, 2, "stick: invalid_argument: limit must be between 1 and 1000 (0 for 50), got 1001"},
		{[]string{"events", s.repo, "--after", "0", "--limit", "1001"}, 2, "stick: invalid_argument: limit must be between 0 (the default, 50) and 1000, got 1001"},
		{[]string{"sync", s.repo, "--max", "1001"}, 2, "stick: invalid_argument: --max must be between 0 (the default, 50) and 1000, got 1001"},
		{[]string{"sync", s.repo, "--wait", "11m"}, 2, "stick: invalid_argument: --wait must be between 0 and 600 seconds (10m0s), got 660 seconds"},
		{[]string{"policy", s.repo, "--lease", "721h"}, 2, "stick: invalid_argument: --lease must be between"},
		{[]string{"policy", s.repo, "--wait", "11m"}, 2, "stick: invalid_argument: --wait must be between"},
		{[]string{"search", "x", "--limit", "many"}, 2, `stick: invalid argument "many" for "--limit" flag`},
	} {
		code, out, errOut := s.run("", tc.args...)
		if code != tc.code || out != "" || !strings.HasPrefix(errOut, tc.says) {
			t.Errorf("stick %s: exit %d, stdout %q, stderr %q; want exit %d saying %q", strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.says)
		}
	}
	// The help of each flag gives the range the library enforces.
	for cmd, ranges := range map[string][]string{
		"policy": {"--lease duration       owner lease TTL, e.g. 45m; 100ms to 720h,", "e.g. 30s; 100ms to 10m,"},
		"sync":   {"(default 50, at most 1000)", "(at most 10m)"},
		"events": {"(default 50, at most 1000)"},
		"search": {"(default 20, at most 200)", "note, question, answer, decision, release, pass, close, document, or a custom note type (x-...)"},
		"note":   {"note (default), question, answer, decision, or your own that starts with x-"},
	} {
		help := s.ok(cmd, "--help")
		for _, r := range ranges {
			if !strings.Contains(help, r) {
				t.Errorf("stick %s --help does not say %q:\n%s", cmd, r, help)
			}
		}
	}
	if out := s.ok("events", s.repo); strings.Contains(out, "questoin") || strings.Contains(out, "ci-status") {
		t.Errorf("a refused note was posted:\n%s", out)
	}
	if out := s.ok("note", "--path", s.repo, "--type", "x-ci-status", "green"); !strings.HasPrefix(out, "x-ci-status #") {
		t.Errorf("a custom type: %s", out)
	}
}
