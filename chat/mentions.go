package chat

import (
	"slices"
	"strings"
	"unicode"
)

// nameTrail is the punctuation that may follow an @name in a sentence
// ("@bob, look") and is not part of the name.
const nameTrail = ",.;:!?)"

// parseMentions splits a line the user typed into the names it addresses
// and the text to post. The @words at its start are addresses only: they
// name recipients and are left out of the text ("@reviewer please look"
// posts "please look" to reviewer). An @word later in the text names a
// recipient too and stays in the text. Names are returned as typed (the
// room resolves them), each once, in the order they first appear.
func parseMentions(line string) (to []string, text string) {
	add := func(word string) {
		name := strings.TrimRight(strings.TrimPrefix(word, "@"), nameTrail)
		if name != "" && !slices.Contains(to, name) {
			to = append(to, name)
		}
	}
	rest := strings.TrimLeftFunc(line, unicode.IsSpace)
	for strings.HasPrefix(rest, "@") {
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		add(rest[:end])
		rest = strings.TrimLeftFunc(rest[end:], unicode.IsSpace)
	}
	text = strings.TrimSpace(rest)
	for _, w := range strings.Fields(text) {
		if len(w) > 1 && w[0] == '@' {
			add(w)
		}
	}
	return to, text
}

// completion is the state of Tab completing an @name, kept while the user
// presses Tab again and again to cycle through the candidates.
type completion struct {
	start int      // where the @word starts, in runes
	end   int      // where the text the last Tab inserted ends, in runes
	cands []string // the names that match the prefix typed, sorted
	i     int      // the candidate inserted last
	value string   // the input's value after the last Tab
}

// completeAt completes the @word that ends at pos (in runes) in value:
// the first candidate on a fresh Tab, the next one when prev is the
// completion the last Tab made and the input has not changed since. It
// returns the completion to keep, the new value and the cursor's
// position; with nothing to complete, a nil completion, value unchanged
// and a message saying why.
func completeAt(value string, pos int, prev *completion, names []string) (c *completion, newValue string, cursor int, msg string) {
	runes := []rune(value)
	if prev != nil && prev.value == value && prev.end == pos && len(prev.cands) > 0 {
		c = prev
		c.i = (c.i + 1) % len(c.cands)
	} else {
		start := pos
		for start > 0 && !unicode.IsSpace(runes[start-1]) {
			start--
		}
		word := string(runes[start:pos])
		if !strings.HasPrefix(word, "@") {
			return nil, value, pos, "Tab completes a member's @name: type @ and the start of a handle or agent id"
		}
		prefix := strings.ToLower(word[1:])
		var cands []string
		for _, n := range names {
			if strings.HasPrefix(strings.ToLower(n), prefix) {
				cands = append(cands, n)
			}
		}
		if len(cands) == 0 {
			return nil, value, pos, "no member's handle or agent id starts with " + word
		}
		c = &completion{start: start, end: pos, cands: cands}
	}
	insert := []rune("@" + c.cands[c.i])
	tail := runes[c.end:]
	if len(tail) == 0 || !unicode.IsSpace(tail[0]) {
		insert = append(insert, ' ')
	}
	out := append(append(append([]rune{}, runes[:c.start]...), insert...), tail...)
	c.end = c.start + len(insert)
	c.value = string(out)
	return c, c.value, c.end, ""
}
