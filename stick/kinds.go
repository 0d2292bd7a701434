package stick

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// NoteTypes are the known kinds of note, the default first. A note's type
// is one of them or a custom type (see CustomTypePrefix); anything else is
// refused, so that a typo ("questoin") cannot pass unnoticed.
var NoteTypes = []NoteType{DefaultNoteType, NoteQuestion, NoteAnswer, NoteDecision}

// CustomTypePrefix starts every custom note type, for example "x-ci-status",
// so that a custom type is visibly custom: after it come a lower-case letter
// or digit, then lower-case letters, digits and . _ -, at most
// MaxMessageTypeLen bytes in all.
const CustomTypePrefix = "x-"

// NoteTypePattern is the regular expression of a valid note type, for
// input schemas; it agrees with NoteTypes and CustomTypePrefix.
const NoteTypePattern = `^(note|question|answer|decision|x-[a-z0-9][a-z0-9._-]{0,61})$`

// SearchTypes are the kinds of hit a search can keep (SearchQuery.Type):
// the known note types, the other event types with text (release, pass,
// close) and DocumentHit. A custom note type (x-...) is a kind of hit too.
var SearchTypes = []string{string(DefaultNoteType), string(NoteQuestion), string(NoteAnswer), string(NoteDecision),
	string(EventRelease), string(EventPass), string(EventClose), DocumentHit}

// SearchTypePattern is the regular expression of a valid search type, for
// input schemas; it agrees with SearchTypes and CustomTypePrefix.
const SearchTypePattern = `^(note|question|answer|decision|release|pass|close|document|x-[a-z0-9][a-z0-9._-]{0,61})$`

// The patterns are compiled at their first use, not at start-up: each
// bounded repetition makes hundreds of allocations, which every command
// would pay whether or not it checks a type.
var (
	noteTypeRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(NoteTypePattern) })
	searchTypeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(SearchTypePattern) })
)

// checkNoteType refuses a note type that is neither known nor custom;
// field names it in the error (message_type, outbox[i].message_type).
func checkNoteType(field string, t NoteType) error {
	if noteTypeRE().MatchString(string(t)) {
		return nil
	}
	known := make([]string, len(NoteTypes))
	for i, k := range NoteTypes {
		known[i] = string(k)
	}
	return invalidArg(field, "%s %s is not a note type: use %s, or a custom type that starts with %q, such as \"x-ci-status\" (lower-case letters, digits and . _ -)",
		field, Quote(string(t)), orList(known), CustomTypePrefix).With("valid", known).With("custom_prefix", CustomTypePrefix)
}

// checkSearchType refuses a search type that is no kind of hit.
func checkSearchType(t string) error {
	if t == "" || searchTypeRE().MatchString(t) {
		return nil
	}
	return invalidArg("type", "type %s is not a kind of hit: use %s, or a custom note type (%s...)",
		Quote(t), orList(SearchTypes), CustomTypePrefix).With("valid", slices.Clone(SearchTypes)).With("custom_prefix", CustomTypePrefix)
}

// orList writes "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return fmt.Sprintf("%s or %s", strings.Join(words[:len(words)-1], ", "), words[len(words)-1])
}
