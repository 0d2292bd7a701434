package stick_test

import (
	"reflect"
	"testing"

	"github.com/stickhq/stick/stick"
)

// A snippet splits into its matches and the text between them; the
// text's own "**" comes back as "**", and a marker without its end is
// text.
func TestSplitSnippet(t *testing.T) {
	type p = stick.SnippetPart
	m := func(s string) p { return p{Text: s, Match: true} }
	x := func(s string) p { return p{Text: s} }
	for _, tc := range []struct {
		snippet string
		want    []p
	}{
		{"the **parser** needs a **fuzz** target", []p{x("the "), m("parser"), x(" needs a "), m("fuzz"), x(" target")}},
		{`use \*\*kwargs in the **parser**`, []p{x("use **kwargs in the "), m("parser")}},
		{`a\*\***parser**\*\*b`, []p{x("a**"), m("parser"), x("**b")}},
		{`**bold \*\* match**`, []p{m("bold ** match")}},
		{`\*\*only escapes\*\*`, []p{x("**only escapes**")}},
		{"an **unclosed marker", []p{x("an **unclosed marker")}},
		{"**a** and **unclosed", []p{m("a"), x(" and **unclosed")}},
		{"**unclosed", []p{x("**unclosed")}},
		{"empty ****", []p{x("empty "), m("")}},
		{`a \* alone`, []p{x(`a \* alone`)}},
		{"<b>**x**</b>", []p{x("<b>"), m("x"), x("</b>")}},
		{"", nil},
	} {
		if got := stick.SplitSnippet(tc.snippet); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitSnippet(%q) = %+v, want %+v", tc.snippet, got, tc.want)
		}
	}
}
