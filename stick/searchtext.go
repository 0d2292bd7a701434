package stick

import (
	"slices"
	"strings"
)

// What a search finds is decided here, for every store alike: the text
// SearchText gives of each event of SearchedEvents, and the Paragraphs of
// each room's current document. A store indexes exactly that, and a hit
// on it has the kind HitType or DocumentHit.

// SearchedEvents are the event types whose text a search finds: notes,
// the handoffs of releases and passes, and closes (their reason and
// conclusion). The others carry no text worth finding, or none of their
// own: a doc event's text is found in the document's paragraphs, once, as
// they stand.
var SearchedEvents = []EventType{EventNote, EventRelease, EventPass, EventClose}

// SearchText returns the text of e that a search finds, and false when e
// is of no type in SearchedEvents. For a release or pass it is the
// handoff's status, next action and open questions, a line each; for a
// close its reason, then its conclusion; for a note its text.
func SearchText(e Event) (text string, ok bool) {
	if !slices.Contains(SearchedEvents, e.Type) {
		return "", false
	}
	if h := e.Handoff; h != nil {
		return h.Status + "\n" + h.NextAction + "\n" + strings.Join(h.OpenQuestions, "\n"), true
	}
	if e.Reason != "" {
		return e.Reason + "\n" + e.Text, true
	}
	return e.Text, true
}

// HitType returns the kind of a search hit on e, as SearchHit.Type shows
// it and SearchQuery.Type keeps it: a note's message type, else the
// event's type.
func HitType(e Event) string {
	if e.MessageType != "" {
		return string(e.MessageType)
	}
	return string(e.Type)
}

// MaxParagraph is the longest piece of a document a search finds as one
// entry; longer paragraphs (a long list) are cut at line ends, so
// that adding a line re-indexes one piece, not the whole list.
const MaxParagraph = 2 << 10

// Paragraph is a piece of a document as a search finds it: a
// heading, or a run of lines between blank lines (blank lines inside a
// fenced block do not end it), cut to at most MaxParagraph bytes, with the
// nearest heading above it.
type Paragraph struct {
	Section string
	Text    string
}

// Paragraphs splits a markdown document into the entries a search finds,
// with the same heading and fence rules as sections. A hit on one names
// its Section.
func Paragraphs(content string) []Paragraph {
	var out []Paragraph
	section := ""
	var para strings.Builder
	flush := func() {
		if para.Len() > 0 {
			out = append(out, Paragraph{Section: section, Text: strings.TrimSuffix(para.String(), "\n")})
			para.Reset()
		}
	}
	var f fences
	for _, line := range docLines(content) {
		code := f.code(line)
		if !code && strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if level, title := headingLevel(line); !code && level > 0 {
			flush()
			section = title
			para.WriteString(block(line))
			flush()
			continue
		}
		if para.Len() > 0 && para.Len()+len(line) > MaxParagraph {
			flush()
		}
		para.WriteString(block(line))
	}
	flush()
	return out
}
