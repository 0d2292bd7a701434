package storecodec

import "strings"

// JoinList encodes names (agent ids, transport names: words without
// spaces) as one text, separated by spaces; "" for none.
func JoinList(names []string) string { return strings.Join(names, " ") }

// SplitList decodes JoinList's text: nil for "", so that a record that
// had none reads back with none.
func SplitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}
