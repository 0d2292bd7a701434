package stick

import (
	"strings"
	"testing"
)

// render writes m as the tests read it: terms in double quotes, a prefix
// with a trailing *, OR within a clause, AND between clauses.
func render(m SearchMatch) string {
	var clauses []string
	for _, c := range m {
		var terms []string
		for _, t := range c {
			s := `"` + t.Words + `"`
			if t.Prefix {
				s += "*"
			}
			terms = append(terms, s)
		}
		s := strings.Join(terms, " OR ")
		if len(terms) > 1 {
			s = "(" + s + ")"
		}
		clauses = append(clauses, s)
	}
	return strings.Join(clauses, " AND ")
}

func TestParseQuery(t *testing.T) {
	for in, want := range map[string]string{
		"flaky test":            `"flaky" AND "test"`,
		`"race condition" lock`: `"race condition" AND "lock"`,
		"migrat*":               `"migrat"*`,
		"a OR b c":              `("a" OR "b") AND "c"`,
		"a OR b* OR c":          `("a" OR "b"* OR "c")`,
		`foo-bar NEAR( x"`:      `"foo-bar" AND "NEAR(" AND "x""`,
		"OR leading":            `"leading"`,
		`"unterminated phrase`:  `"unterminated phrase"`,
		"a\x00b":                `"a" AND "b"`,
		`"error recov"* x`:      `"error recov"* AND "x"`,
	} {
		if m, err := ParseQuery(in); err != nil || render(m) != want {
			t.Errorf("ParseQuery(%q) = %s, %v; want %s", in, render(m), err, want)
		}
	}
	for _, bad := range []string{"", "   ", "-- ** ()", `""`} {
		if _, err := ParseQuery(bad); ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("ParseQuery(%q) must be invalid_argument, got %v", bad, err)
		}
	}
}
