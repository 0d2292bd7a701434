// Command testreport reads 'go test -json' on standard input and prints
// what a person needs from it, as the tests run: each package's result line,
// the whole output of every failed test and of every package that failed,
// build errors, and at the end every skipped test with the reason it gave,
// so that no test is skipped quietly. It exits 1 when a test, a package or
// a build failed, and 2 when its input is not what 'go test -json' writes.
//
//	go test -race -count=1 -json ./... | go run ./internal/testreport
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of 'go test -json' (see 'go doc cmd/test2json').
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	// ImportPath names the package of a build-output or build-fail event.
	ImportPath string
}

// skip is a test that was skipped and the reason it gave.
type skip struct{ pkg, test, reason string }

func main() {
	os.Exit(report(os.Stdin, os.Stdout))
}

// report copies the essentials of the event stream in to out and returns
// the exit status.
func report(in io.Reader, out io.Writer) int {
	output := map[string][]string{} // package and test -> output lines so far
	var skips []skip
	failed := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line) // not an event: pass it on
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "build-fail":
			failed = true
		case "output":
			output[key] = append(output[key], e.Output)
		case "fail":
			failed = true
			if e.Test == "" { // a package that failed: also what its unfinished tests printed (a timeout, a crash)
				for k, lines := range output {
					if k != key && strings.HasPrefix(k, key) {
						fmt.Fprint(out, strings.Join(lines, ""))
						delete(output, k)
					}
				}
			}
			fmt.Fprint(out, strings.Join(output[key], ""))
			delete(output, key)
		case "pass":
			if e.Test == "" {
				fmt.Fprint(out, resultLines(output[key]))
			}
			delete(output, key)
		case "skip":
			if e.Test == "" {
				fmt.Fprint(out, resultLines(output[key])) // "?  pkg  [no test files]"
			} else {
				skips = append(skips, skip{e.Package, e.Test, skipReason(output[key])})
			}
			delete(output, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "testreport: reading the test events: %v\n", err)
		return 2
	}
	if len(skips) > 0 {
		fmt.Fprintf(out, "== skipped: %d test(s), each with its reason\n", len(skips))
		for _, s := range skips {
			fmt.Fprintf(out, "  SKIP %s %s: %s\n", s.pkg, s.test, s.reason)
		}
	}
	if failed {
		return 1
	}
	return 0
}

// resultLines keeps the lines of a package's own output that say its
// result ("ok  pkg  1.2s", "?  pkg  [no test files]"), not the "PASS" line
// before them.
func resultLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "ok\t") || strings.HasPrefix(l, "?") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// skipReason is the last line a skipped test printed before its "--- SKIP"
// line: the message of t.Skip, without the file:line prefix's indentation.
func skipReason(lines []string) string {
	reason := "no reason given"
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		reason = t
	}
	return reason
}
