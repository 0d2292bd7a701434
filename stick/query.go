package stick

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SearchMatch is a parsed search query, the form in which a query reaches
// a store (Tx.Search): an entry matches when it matches every clause
// (AND), and a clause matches when any one of its terms does (OR). It
// holds no syntax of any store: each store compiles it to its own
// full-text language, and every character of a term is a character of
// the words to find. ParseQuery makes one from the text a person types;
// Validate checks one made otherwise.
type SearchMatch []SearchClause

// SearchClause is one required part of a SearchMatch: it matches an entry
// when any one of its terms does, so a clause of one term is that term
// and a clause of several is their OR.
type SearchClause []SearchTerm

// SearchTerm is one word or one phrase of a search.
//
// Without Prefix, each of its words matches the entry's words with the
// same stem, whole words only: "migration" finds migration and
// migrations, "parser" finds parsers, but "parse" does not find parser.
// With Prefix, its words match as written instead, unstemmed: the last
// word every word that begins with it ("migration" finds migrations and
// migrationsplan, not migrate), and the words before it (of a phrase)
// those very words. A term of several words (a phrase) matches them
// adjacent and in order. Case and diacritics never matter ("cafe" finds
// Café).
type SearchTerm struct {
	// Words is a word, or the words of a phrase in order, as typed. A
	// store splits it into words the way its index splits text (for
	// example at the hyphen of "foo-bar", which makes the phrase
	// "foo bar"); it has at least one letter or digit.
	Words string
	// Prefix makes the term match words as written, its last word as the
	// beginning of a word (see SearchTerm).
	Prefix bool
}

// ParseQuery parses the query language of search into a SearchMatch:
//
//   - Words separated by white space must all appear: flaky test.
//   - "a phrase" in double quotes finds its words in order; a quote left
//     open runs to the end of the query.
//   - A * right after a word or a closing quote makes it a prefix:
//     migrat*, "error recov"* (several stars are one).
//   - OR, in capitals, between two terms finds either: parser OR lexer;
//     a chain a OR b OR c is one clause of three terms. An OR with no term
//     before or after it is ignored.
//   - A term with no letter or digit (punctuation alone, "", *) is
//     ignored; control characters separate words.
//   - Every other character belongs to the word it is in: there are no
//     other operators (AND, NOT, NEAR, -, parentheses and colons are
//     searched for, as the store's index splits them).
//
// It fails with invalid_argument on the field "query" when the query is
// empty, longer than MaxQueryLen bytes, not valid UTF-8, or has no term
// with a letter or digit; the message says which. The result always
// passes Validate.
func ParseQuery(query string) (SearchMatch, error) {
	if problem := textProblem(query, MaxQueryLen, true); problem != "" {
		return nil, invalidArg("query", "query %s", problem)
	}
	// Control characters separate words: a store's own query syntax may
	// read one (a NUL) as the end of the query.
	query = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, query)
	var m SearchMatch
	pendingOr := false
	add := func(words string, prefix bool) {
		if !hasWordChar(words) {
			return
		}
		t := SearchTerm{Words: words, Prefix: prefix}
		if pendingOr && len(m) > 0 {
			m[len(m)-1] = append(m[len(m)-1], t)
		} else {
			m = append(m, SearchClause{t})
		}
		pendingOr = false
	}
	rest := query
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				end = len(rest) - 1
			}
			phrase := rest[1 : 1+end]
			rest = rest[min(len(rest), end+2):]
			prefix := strings.HasPrefix(rest, "*")
			add(phrase, prefix)
			rest = strings.TrimLeft(rest, "*")
			continue
		}
		word := rest
		if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
			word = rest[:i]
		}
		rest = rest[len(word):]
		if word == "OR" {
			pendingOr = len(m) > 0
			continue
		}
		prefix := strings.HasSuffix(word, "*")
		add(strings.TrimRight(word, "*"), prefix)
	}
	if len(m) == 0 {
		return nil, invalidArg("query", "query %s has no word to search for", Quote(query)).
			WithHint("give at least one word of letters or digits")
	}
	return m, nil
}

// hasWordChar reports whether s has a letter or a digit.
func hasWordChar(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// Validate checks m as ParseQuery would have made it: at least one
// clause, no empty clause, and every term valid UTF-8 with a letter or
// digit, no control character and at most MaxQueryLen bytes. A store may
// rely on it for every match that reaches Tx.Search through the Service.
// It fails with invalid_argument on the field "query", saying which
// clause and term is wrong.
func (m SearchMatch) Validate() error {
	if len(m) == 0 {
		return invalidArg("query", "the search has no clause: give at least one word to search for")
	}
	for i, c := range m {
		if len(c) == 0 {
			return invalidArg("query", "clause %d of the search has no term", i+1)
		}
		for j, t := range c {
			problem := ""
			switch {
			case len(t.Words) > MaxQueryLen:
				problem = fmt.Sprintf("is %d bytes; at most %d are allowed", len(t.Words), MaxQueryLen)
			case !utf8.ValidString(t.Words):
				problem = "is not valid UTF-8"
			case strings.ContainsFunc(t.Words, unicode.IsControl):
				problem = "has a control character"
			case !hasWordChar(t.Words):
				problem = "has no letter or digit"
			}
			if problem != "" {
				return invalidArg("query", "term %d of clause %d of the search, %s, %s", j+1, i+1, Quote(t.Words), problem)
			}
		}
	}
	return nil
}

// String writes m in the query language, so that ParseQuery(m.String())
// gives m back for every m that ParseQuery made (unless the text grows
// past MaxQueryLen, as an open quote it closes may make it): a term that
// reads back as itself bare (one word, not OR, not ending in *, not
// starting with a quote) as it is, any other in double quotes, a prefix
// with a trailing *, the terms of a clause joined by OR.
func (m SearchMatch) String() string {
	var b strings.Builder
	for i, c := range m {
		if i > 0 {
			b.WriteByte(' ')
		}
		for j, t := range c {
			if j > 0 {
				b.WriteString(" OR ")
			}
			if bare(t.Words) {
				b.WriteString(t.Words)
			} else {
				b.WriteString(`"` + t.Words + `"`)
			}
			if t.Prefix {
				b.WriteByte('*')
			}
		}
	}
	return b.String()
}

// bare reports whether ParseQuery reads words, unquoted, as one term of
// these very words.
func bare(words string) bool {
	return words != "" && words != "OR" && words[0] != '"' && !strings.HasSuffix(words, "*") &&
		!strings.ContainsFunc(words, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}
