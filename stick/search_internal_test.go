package stick

import "testing"

func TestMatchExpr(t *testing.T) {
	for in, want := range map[string]string{
		"flaky test":            `"flaky" AND "test"`,
		`"race condition" lock`: `"race condition" AND "lock"`,
		"migrat*":               `"migrat"*`,
		"a OR b c":              `("a" OR "b") AND "c"`,
		`foo-bar NEAR( x"`:      `"foo-bar" AND "NEAR(" AND "x"""`,
		"OR leading":            `"leading"`,
		`"unterminated phrase`:  `"unterminated phrase"`,
		"a\x00b":                `"a" AND "b"`,
		`"error recov"* x`:      `"error recov"* AND "x"`,
	} {
		if got, err := matchExpr(in); err != nil || got != want {
			t.Errorf("matchExpr(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", "-- ** ()", `""`} {
		if _, err := matchExpr(bad); ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("matchExpr(%q) must be invalid_argument, got %v", bad, err)
		}
	}
}
