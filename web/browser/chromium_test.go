package browser_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// chromiumEnv are the variables that name the browser to use, first
// match wins: a path, or a name looked up on PATH.
var chromiumEnv = []string{"STICK_CHROMIUM", "CHROME_PATH"}

// chromiumNames are the browsers looked for when no variable names one.
var chromiumNames = []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// installHint says how to get a browser for these tests.
const installHint = "install Chromium (Debian/Ubuntu: apt-get install chromium; .ci/run does) or set STICK_CHROMIUM or CHROME_PATH to a Chromium or Chrome binary"

// findChromium returns the browser the tests drive. A variable of
// chromiumEnv that is set must name an executable, or it is an error: the
// tests never fall back to another browser than the one asked for. With
// none set, it tries chromiumNames; found is false when none is there.
func findChromium(getenv func(string) string) (path string, found bool, err error) {
	for _, v := range chromiumEnv {
		if name := getenv(v); name != "" {
			p, err := exec.LookPath(name)
			if err != nil {
				return "", false, fmt.Errorf("%s=%s: no executable there (%v); %s", v, name, err, installHint)
			}
			return p, true, nil
		}
	}
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p, true, nil
		}
	}
	return "", false, nil
}

// browserRequired reports whether a missing browser fails the tests
// instead of skipping them: on CI, and with STICK_REQUIRE_BROWSER=1.
func browserRequired(getenv func(string) string) bool {
	set := func(v string) bool {
		switch strings.ToLower(getenv(v)) {
		case "", "0", "false", "no":
			return false
		}
		return true
	}
	return set("CI") || set("STICK_REQUIRE_BROWSER")
}

// missingBrowser is what a test says when there is no browser.
func missingBrowser() string {
	return fmt.Sprintf("no Chromium found (looked at $%s, then %s): %s. These tests skip without one; CI or STICK_REQUIRE_BROWSER=1 makes that a failure",
		strings.Join(chromiumEnv, ", $"), strings.Join(chromiumNames, ", "), installHint)
}

// The browser is the one the variables name, else the first of the known
// names; a variable naming nothing is an error, not a quiet fallback, and
// CI or STICK_REQUIRE_BROWSER turn a missing browser into a failure.
func TestFindChromium(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "my-chrome")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, v := range chromiumEnv {
		p, found, err := findChromium(env(map[string]string{v: fake}))
		if err != nil || !found || p != fake {
			t.Errorf("%s=%s: found %q %v %v", v, fake, p, found, err)
		}
	}
	p, _, err := findChromium(env(map[string]string{"STICK_CHROMIUM": fake, "CHROME_PATH": "/nowhere/chrome"}))
	if err != nil || p != fake {
		t.Errorf("STICK_CHROMIUM comes first: %q %v", p, err)
	}
	_, found, err := findChromium(env(map[string]string{"CHROME_PATH": filepath.Join(dir, "missing")}))
	if err == nil || found || !strings.Contains(err.Error(), "CHROME_PATH=") || !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Errorf("a variable that names nothing: %v %v", found, err)
	}
	for kv, want := range map[string]bool{"": false, "CI=true": true, "CI=false": false, "STICK_REQUIRE_BROWSER=1": true, "STICK_REQUIRE_BROWSER=0": false} {
		k, v, _ := strings.Cut(kv, "=")
		if got := browserRequired(env(map[string]string{k: v})); got != want {
			t.Errorf("browserRequired with %q: %v", kv, got)
		}
	}
	if msg := missingBrowser(); !strings.Contains(msg, "apt-get install chromium") || !strings.Contains(msg, "STICK_REQUIRE_BROWSER=1") {
		t.Errorf("the skip message does not say how to install a browser: %s", msg)
	}
}
