package web

// MarkdownHTML and SafeTarget are the document's renderer and its link
// filter, for the tests of package web_test.
var (
	MarkdownHTML = markdownHTML
	SafeTarget   = safeTarget
)
