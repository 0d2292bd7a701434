package skill_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runTestSh runs ./test.sh with fake go and gofmt (which log and succeed,
// or fail the call $FAKE_GO_FAIL names) on a PATH that holds only them, the
// few tools the script needs, and the given shells (or other programs, such
// as chromium, as fakes that do nothing).
func runTestSh(t *testing.T, shells []string, env ...string) (string, int) {
	t.Helper()
	out, code, _ := runTestShLog(t, shells, env...)
	return out, code
}

// runTestShLog is runTestSh that also returns the fake go's log: each call
// as "go ARGS", and after each 'go test' the STICK_REQUIRE_BROWSER it ran
// with.
func runTestShLog(t *testing.T, shells []string, env ...string) (string, int, string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here: ./test.sh needs it")
	}
	bin := t.TempDir()
	for _, tool := range []string{"dirname", "date", "sort"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	// What starting a throwaway PostgreSQL cluster takes, where there is one.
	for _, tool := range []string{"mktemp", "mkdir", "id", "chown", "runuser", "rm", "ls", "cat"} {
		if p, err := exec.LookPath(tool); err == nil {
			if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	fakes := map[string]string{
		// One write per call: test.sh pipes 'go test' into 'go run', so
		// two calls may log at once, and a call's lines must stay together.
		"go": "#!/bin/sh\nif [ \"$1\" = test ]; then line=\"go $*\n  with STICK_REQUIRE_BROWSER=$STICK_REQUIRE_BROWSER\n" +
			"  with STICK_REQUIRE_POSTGRES=$STICK_REQUIRE_POSTGRES STICK_TEST_STORE=$STICK_TEST_STORE STICK_TEST_DATABASE_URL=$STICK_TEST_DATABASE_URL\"; else line=\"go $*\"; fi\n" +
			"if [ \"$1\" = test ] && [ -n \"$FAKE_GO_PG_ISREADY\" ]; then h=${STICK_TEST_DATABASE_URL#*host=}; h=${h%%&*}; \"$FAKE_GO_PG_ISREADY\" -q -h \"$h\" || line=\"$line\n  server not ready\"; fi\n" +
			"printf '%s\\n' \"$line\" >>\"$FAKE_GO_LOG\"\n" +
			"[ \"$FAKE_GO_FAIL\" = \"$1 $2\" ] && { echo \"go $1 $2: failed\"; exit 1; }\nexit 0\n",
		"gofmt": "#!/bin/sh\nexit 0\n",
	}
	for _, sh := range shells {
		fakes[sh] = "#!/bin/sh\nexit 0\n"
	}
	for name, script := range fakes {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bash, "./test.sh")
	// A server named by the environment keeps test.sh from starting one,
	// unless the test asks for something else.
	cmd.Env = append([]string{"PATH=" + bin, "HOME=" + t.TempDir(), "FAKE_GO_LOG=" + filepath.Join(bin, "go.log"),
		"STICK_TEST_DATABASE_URL=postgres://fake@/fake?host=/nonexistent"}, env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	calls, err := os.ReadFile(filepath.Join(bin, "go.log"))
	if err == nil && code == 0 {
		// The tests run through the report that lists every skipped test.
		if !strings.Contains(string(calls), "go test -race -count=1 -json ./...\n") || !strings.Contains(string(calls), "go run ./internal/testreport\n") {
			t.Fatalf("test.sh does not run the tests through ./internal/testreport:\n%s", calls)
		}
	}
	return string(out), code, string(calls)
}

// ./test.sh says how long each stage and the whole run took, and says
// loudly, before and after the tests, that the prompt tests skip a shell
// that is not installed.
func TestTestShTimesStagesAndWarnsOfMissingShells(t *testing.T) {
	out, code := runTestSh(t, nil)
	if code != 0 {
		t.Fatalf("test.sh with fakes: exit %d\n%s", code, out)
	}
	warning := "WARNING: not installed: zsh fish; TestPromptSnippetsInRealShells SKIPS the prompt snippets for them."
	if strings.Count(out, warning) != 2 || !strings.HasPrefix(out, warning) || !strings.HasSuffix(strings.TrimSpace(out), "run .ci/run, which does.") {
		t.Fatalf("the missing shells are not warned of first and last:\n%s", out)
	}
	_, times, ok := strings.Cut(out, "== time\n")
	if !ok {
		t.Fatalf("no time summary:\n%s", out)
	}
	for _, stage := range []string{"gofmt", "go vet", "staticcheck v0.8.2", "go test -race", "chaos soak (60s, 12 processes, seed 1)", "chaos soak over a hub (45s, 8 processes, seed 1)",
		"chaos soak on PostgreSQL (30s, 8 processes, seed 1)", "chaos soak over a hub on PostgreSQL (30s, 8 processes, seed 1)", "fuzz (10s each)", "total"} {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(stage) + ` +\d+s$`).MatchString(times) {
			t.Errorf("no time for %q in:\n%s", stage, times)
		}
		if stage != "total" && !strings.Contains(out, "   ("+stage+": ") {
			t.Errorf("stage %q does not say its time when it ends:\n%s", stage, out)
		}
	}

	out, code = runTestSh(t, []string{"zsh", "fish", "chromium"})
	if code != 0 || strings.Contains(out, "WARNING") {
		t.Fatalf("with both shells: exit %d\n%s", code, out)
	}
	out, _ = runTestSh(t, []string{"fish"}, "STICK_REQUIRE_SHELLS=1")
	if !strings.Contains(out, "WARNING: not installed: zsh; STICK_REQUIRE_SHELLS is set, so TestPromptSnippetsInRealShells will fail") {
		t.Fatalf("with STICK_REQUIRE_SHELLS and no zsh:\n%s", out)
	}
	out, code = runTestSh(t, []string{"zsh", "fish"}, "FAKE_GO_FAIL=test -race")
	if code == 0 || !regexp.MustCompile(`test\.sh: FAILED in stage 'go test -race' after \d+s`).MatchString(out) || strings.Contains(out, "== chaos") {
		t.Fatalf("a failing stage: exit %d\n%s", code, out)
	}
}

// ./test.sh runs the page's browser tests with STICK_REQUIRE_BROWSER=1, so
// that they fail without Chromium, and says so loudly before and after the
// tests; STICK_REQUIRE_BROWSER=0 makes them skip, said as loudly.
func TestTestShRequiresBrowser(t *testing.T) {
	tests := "go test -race -count=1 -json ./...\n  with STICK_REQUIRE_BROWSER="
	fails := "WARNING: Chromium not found, so the page's browser tests (web/browser) will fail."
	out, code, calls := runTestShLog(t, []string{"zsh", "fish"})
	if code != 0 || strings.Count(out, fails) != 2 || !strings.Contains(calls, tests+"1\n") {
		t.Fatalf("without Chromium: exit %d\n%s\ngo calls:\n%s", code, out, calls)
	}
	skips := "WARNING: Chromium not found; the page's browser tests (web/browser) SKIP."
	out, code, calls = runTestShLog(t, []string{"zsh", "fish"}, "STICK_REQUIRE_BROWSER=0")
	if code != 0 || strings.Count(out, skips) != 2 || strings.Contains(out, fails) || !strings.Contains(calls, tests+"0\n") {
		t.Fatalf("without Chromium, STICK_REQUIRE_BROWSER=0: exit %d\n%s\ngo calls:\n%s", code, out, calls)
	}
	out, code, calls = runTestShLog(t, []string{"zsh", "fish", "chromium"})
	if code != 0 || strings.Contains(out, "WARNING") || !strings.Contains(calls, tests+"1\n") {
		t.Fatalf("with Chromium: exit %d\n%s\ngo calls:\n%s", code, out, calls)
	}
	fake := filepath.Join(t.TempDir(), "my-chrome")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"STICK_CHROMIUM", "CHROME_PATH"} {
		if out, code := runTestSh(t, []string{"zsh", "fish"}, v+"="+fake); code != 0 || strings.Contains(out, "WARNING") {
			t.Fatalf("with %s naming a browser: exit %d\n%s", v, code, out)
		}
	}
}

// ./test.sh gives the tests a throwaway PostgreSQL cluster (a Unix socket
// in a temporary directory, ready while the tests run, gone at the end),
// runs the behaviour tests once more on it, and without PostgreSQL says
// loudly, before and after the tests, that its tests fail
// (STICK_REQUIRE_POSTGRES=1, the default) or skip (=0).
func TestTestShPostgres(t *testing.T) {
	empty := t.TempDir()
	fails := "WARNING: PostgreSQL not found, so the PostgreSQL store's tests will fail."
	out, code, calls := runTestShLog(t, []string{"zsh", "fish", "chromium"}, "STICK_TEST_DATABASE_URL=", "STICK_PG_BIN="+empty)
	if code != 0 || strings.Count(out, fails) != 2 || !strings.Contains(calls, "STICK_REQUIRE_POSTGRES=1 STICK_TEST_STORE= STICK_TEST_DATABASE_URL=\n") {
		t.Fatalf("without PostgreSQL: exit %d\n%s\ngo calls:\n%s", code, out, calls)
	}
	skips := "WARNING: PostgreSQL not found; the PostgreSQL store's tests SKIP."
	out, code, calls = runTestShLog(t, []string{"zsh", "fish", "chromium"}, "STICK_TEST_DATABASE_URL=", "STICK_PG_BIN="+empty, "STICK_REQUIRE_POSTGRES=0")
	if code != 0 || strings.Count(out, skips) != 2 || strings.Contains(out, fails) || !strings.Contains(calls, "STICK_REQUIRE_POSTGRES=0 ") {
		t.Fatalf("without PostgreSQL, STICK_REQUIRE_POSTGRES=0: exit %d\n%s\ngo calls:\n%s", code, out, calls)
	}
	out, code, calls = runTestShLog(t, []string{"zsh", "fish", "chromium"})
	if code != 0 || strings.Contains(out, "WARNING") ||
		!strings.Contains(calls, "go test -race -count=1 -json ./stick\n  with STICK_REQUIRE_BROWSER=\n  with STICK_REQUIRE_POSTGRES=1 STICK_TEST_STORE=postgres STICK_TEST_DATABASE_URL=postgres://fake@/fake?host=/nonexistent\n") {
		t.Fatalf("with a server named: exit %d\n%s\ngo calls:\n%s", code, out, calls)
	}

	bin := pgBin(t)
	out, code, calls = runTestShLog(t, []string{"zsh", "fish", "chromium"}, "STICK_TEST_DATABASE_URL=", "STICK_PG_BIN="+bin,
		"FAKE_GO_PG_ISREADY="+filepath.Join(bin, "pg_isready"))
	m := regexp.MustCompile(`STICK_TEST_DATABASE_URL=postgres://postgres@/postgres\?host=(/[^&\n]+/sock)&sslmode=disable\n`).FindStringSubmatch(calls)
	if code != 0 || strings.Contains(out, "WARNING") || m == nil || strings.Contains(calls, "server not ready") {
		t.Fatalf("with PostgreSQL installed: exit %d\n%s\ngo calls:\n%s", code, out, calls)
	}
	if _, err := os.Stat(filepath.Dir(m[1])); !os.IsNotExist(err) {
		t.Fatalf("the cluster's directory %s is still there after test.sh: %v", filepath.Dir(m[1]), err)
	}
}

// pgBin returns the directory of PostgreSQL's initdb, failing the test
// where there is none and STICK_REQUIRE_POSTGRES=1 or CI is set, else
// skipping it.
func pgBin(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(dirs) > 0 {
		return filepath.Dir(dirs[len(dirs)-1])
	}
	msg := "PostgreSQL's initdb is not installed (apt-get install postgresql)"
	if os.Getenv("STICK_REQUIRE_POSTGRES") == "1" || os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
