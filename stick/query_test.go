package stick_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestParseQueryTyped: the query language becomes clauses of terms, and
// String writes it back in a form that parses to the same match.
func TestParseQueryTyped(t *testing.T) {
	type m = stick.SearchMatch
	type c = stick.SearchClause
	type term = stick.SearchTerm
	for _, tc := range []struct {
		in     string
		want   m
		string string
	}{
		{"flaky test", m{c{term{Words: "flaky"}}, c{term{Words: "test"}}}, "flaky test"},
		{`"race condition" lock`, m{c{term{Words: "race condition"}}, c{term{Words: "lock"}}}, `"race condition" lock`},
		{"migrat**", m{c{term{Words: "migrat", Prefix: true}}}, "migrat*"},
		{`"error recov"* x`, m{c{term{Words: "error recov", Prefix: true}}, c{term{Words: "x"}}}, `"error recov"* x`},
		{"a OR b* OR c d", m{c{term{Words: "a"}, term{Words: "b", Prefix: true}, term{Words: "c"}}, c{term{Words: "d"}}}, "a OR b* OR c d"},
		{"OR a OR", m{c{term{Words: "a"}}}, "a"},
		{"a OR -- b", m{c{term{Words: "a"}, term{Words: "b"}}}, "a OR b"},
		{`"OR" or`, m{c{term{Words: "OR"}}, c{term{Words: "or"}}}, `"OR" or`},
		{`x" NOT(y)`, m{c{term{Words: `x"`}}, c{term{Words: "NOT(y)"}}}, `x" NOT(y)`},
		{`"a*" b*c`, m{c{term{Words: "a*"}}, c{term{Words: "b*c"}}}, `"a*" b*c`},
		{"\"open phrase\tto the end", m{c{term{Words: "open phrase to the end"}}}, `"open phrase to the end"`},
		{"Café\u00a0crème", m{c{term{Words: "Café"}}, c{term{Words: "crème"}}}, "Café crème"},
	} {
		got, err := stick.ParseQuery(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseQuery(%q) = %#v, %v; want %#v", tc.in, got, err, tc.want)
			continue
		}
		if s := got.String(); s != tc.string {
			t.Errorf("ParseQuery(%q).String() = %q, want %q", tc.in, s, tc.string)
		}
		checkParsed(t, tc.in, got)
	}
}

// checkParsed checks what ParseQuery promises of a match it made: it
// passes Validate, and its String parses back to it.
func checkParsed(t *testing.T, in string, got stick.SearchMatch) {
	t.Helper()
	if err := got.Validate(); err != nil {
		t.Fatalf("ParseQuery(%q) = %#v, which fails Validate: %v", in, got, err)
	}
	s := got.String()
	if len(s) > stick.MaxQueryLen {
		return
	}
	back, err := stick.ParseQuery(s)
	if err != nil || !reflect.DeepEqual(back, got) {
		t.Fatalf("ParseQuery(%q) = %#v, written %q, which parses to %#v, %v", in, got, s, back, err)
	}
}

// TestParseQueryRefusals: a query with nothing to search for, too long or
// not UTF-8 is invalid_argument on the field query, saying why.
func TestParseQueryRefusals(t *testing.T) {
	for in, why := range map[string]string{
		"":              "must be non-empty",
		" \t ":          "must be non-empty",
		`-- ** () ""`:   "has no word to search for",
		"OR OR":         "has no word to search for",
		"bad \xff byte": "is not valid UTF-8",
		strings.Repeat("a ", stick.MaxQueryLen/2+1): "bytes; at most 1024 are allowed",
	} {
		_, err := stick.ParseQuery(in)
		checkQueryErr(t, "ParseQuery("+stick.Quote(in)+")", err, why)
	}
}

// TestSearchMatchValidate: a match made by hand is checked as a parsed
// one would be, and the error names the clause and term.
func TestSearchMatchValidate(t *testing.T) {
	type m = stick.SearchMatch
	type c = stick.SearchClause
	type term = stick.SearchTerm
	for _, tc := range []struct {
		m   m
		why string
	}{
		{nil, "no clause"},
		{m{}, "no clause"},
		{m{c{term{Words: "a"}}, c{}}, "clause 2 of the search has no term"},
		{m{c{term{Words: "a"}, term{Words: "--"}}}, `term 2 of clause 1 of the search, "--", has no letter or digit`},
		{m{c{term{Words: "a\x00b"}}}, "has a control character"},
		{m{c{term{Words: "a\xffb"}}}, "is not valid UTF-8"},
		{m{c{term{Words: strings.Repeat("a", stick.MaxQueryLen+1)}}}, "bytes; at most 1024 are allowed"},
	} {
		checkQueryErr(t, "Validate "+tc.m.String(), tc.m.Validate(), tc.why)
	}
	if err := (m{c{term{Words: "a b", Prefix: true}, term{Words: "é"}}}).Validate(); err != nil {
		t.Errorf("a valid match refused: %v", err)
	}
}

func checkQueryErr(t *testing.T, what string, err error, why string) {
	t.Helper()
	var se *stick.Error
	if !errors.As(err, &se) || se.Code != stick.CodeInvalidArgument || se.Details["field"] != "query" {
		t.Errorf("%s: want invalid_argument on query, got %v", what, err)
		return
	}
	if !strings.Contains(se.Message, why) {
		t.Errorf("%s: the message %q must say %q", what, se.Message, why)
	}
}

// FuzzParseQuery: any text either is refused with invalid_argument on the
// query, or parses to a match that passes Validate and that String writes
// back in a form that parses to the same match.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"flaky test", `"race condition"* OR lock`, `foo-bar NEAR( x"`, "OR", `""`, "a\x00b", `x" "y`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := stick.ParseQuery(in)
		if err != nil {
			var se *stick.Error
			if !errors.As(err, &se) || se.Code != stick.CodeInvalidArgument || se.Details["field"] != "query" {
				t.Fatalf("ParseQuery(%q): want invalid_argument on query, got %v", in, err)
			}
			return
		}
		checkParsed(t, in, got)
	})
}
