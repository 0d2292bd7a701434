package main

import (
	"strings"
	"testing"
)

// The report passes on package results, prints the output of what failed
// and lists every skipped test with its reason at the end.
func TestReport(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"example.com/a"}`,
		`{"Action":"run","Package":"example.com/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"example.com/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"output","Package":"example.com/a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}`,
		`{"Action":"pass","Package":"example.com/a","Test":"TestOK"}`,
		`{"Action":"run","Package":"example.com/a","Test":"TestShells/zsh"}`,
		`{"Action":"output","Package":"example.com/a","Test":"TestShells/zsh","Output":"=== RUN   TestShells/zsh\n"}`,
		`{"Action":"output","Package":"example.com/a","Test":"TestShells/zsh","Output":"    status_test.go:219: zsh is not installed\n"}`,
		`{"Action":"output","Package":"example.com/a","Test":"TestShells/zsh","Output":"--- SKIP: TestShells/zsh (0.00s)\n"}`,
		`{"Action":"skip","Package":"example.com/a","Test":"TestShells/zsh"}`,
		`{"Action":"output","Package":"example.com/a","Output":"PASS\n"}`,
		`{"Action":"output","Package":"example.com/a","Output":"ok  \texample.com/a\t0.123s\n"}`,
		`{"Action":"pass","Package":"example.com/a"}`,
		`{"Action":"output","Package":"example.com/b","Test":"TestBad","Output":"    b_test.go:9: got 1, want 2\n"}`,
		`{"Action":"output","Package":"example.com/b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}`,
		`{"Action":"fail","Package":"example.com/b","Test":"TestBad"}`,
		`{"Action":"output","Package":"example.com/b","Test":"TestHangs","Output":"=== RUN   TestHangs\n"}`,
		`{"Action":"output","Package":"example.com/b","Output":"panic: test timed out after 10m0s\n"}`,
		`{"Action":"output","Package":"example.com/b","Output":"FAIL\n"}`,
		`{"Action":"output","Package":"example.com/b","Output":"FAIL\texample.com/b\t0.010s\n"}`,
		`{"Action":"fail","Package":"example.com/b"}`,
		`{"ImportPath":"example.com/c","Action":"build-output","Output":"c.go:3:1: syntax error\n"}`,
		`{"ImportPath":"example.com/c","Action":"build-fail"}`,
		`{"Action":"output","Package":"example.com/d","Output":"?   \texample.com/d\t[no test files]\n"}`,
		`{"Action":"skip","Package":"example.com/d"}`,
		`not json at all`,
	}, "\n") + "\n"
	var out strings.Builder
	code := report(strings.NewReader(in), &out)
	want := "ok  \texample.com/a\t0.123s\n" +
		"    b_test.go:9: got 1, want 2\n--- FAIL: TestBad (0.00s)\n" +
		"=== RUN   TestHangs\n" +
		"panic: test timed out after 10m0s\nFAIL\nFAIL\texample.com/b\t0.010s\n" +
		"c.go:3:1: syntax error\n" +
		"?   \texample.com/d\t[no test files]\n" +
		"not json at all\n" +
		"== skipped: 1 test(s), each with its reason\n" +
		"  SKIP example.com/a TestShells/zsh: status_test.go:219: zsh is not installed\n"
	if code != 1 || out.String() != want {
		t.Fatalf("exit %d\n got %q\nwant %q", code, out.String(), want)
	}

	out.Reset()
	if code := report(strings.NewReader(`{"Action":"pass","Package":"example.com/a"}`+"\n"), &out); code != 0 || out.String() != "" {
		t.Fatalf("a quiet pass: exit %d %q", code, out.String())
	}
}
