package stick

import "strings"

// EscapedMarker is how a SearchHit's Snippet writes a "**" of the matched
// text itself, so that only the highlight markers are a bare "**".
const EscapedMarker = `\*\*`

// SnippetPart is a piece of a search hit's snippet: its text as written
// (the markers taken out, an escaped "**" of the text written back as
// "**"), and whether it is a match.
type SnippetPart struct {
	Text  string
	Match bool
}

// SplitSnippet splits a SearchHit's Snippet into its pieces, in order:
// the text between HighlightStart and HighlightEnd is a match, the rest
// is not, and EscapedMarker is the text's own "**". A start marker
// without its end is text, as written. Every frontend that shows matches
// otherwise than as the snippet's markdown (in bold on a terminal, marked
// on a page) reads a snippet through it, so all of them read it alike;
// each then escapes the pieces for where it shows them.
func SplitSnippet(snippet string) []SnippetPart {
	var parts []SnippetPart
	var cur strings.Builder
	open := false // between a start marker and its end
	flush := func(match bool) {
		if cur.Len() > 0 || match {
			parts = append(parts, SnippetPart{Text: cur.String(), Match: match})
		}
		cur.Reset()
	}
	for i := 0; i < len(snippet); {
		rest := snippet[i:]
		switch {
		case strings.HasPrefix(rest, EscapedMarker):
			cur.WriteString("**")
			i += len(EscapedMarker)
		case !open && strings.HasPrefix(rest, HighlightStart):
			flush(false)
			open = true
			i += len(HighlightStart)
		case open && strings.HasPrefix(rest, HighlightEnd):
			flush(true)
			open = false
			i += len(HighlightEnd)
		default:
			cur.WriteByte(snippet[i])
			i++
		}
	}
	if open { // no end marker: the start marker was text
		text := HighlightStart + cur.String()
		cur.Reset()
		if n := len(parts); n > 0 && !parts[n-1].Match {
			text = parts[n-1].Text + text
			parts = parts[:n-1]
		}
		cur.WriteString(text)
	}
	flush(false)
	return parts
}
