package web

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"html/template"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdownHTML renders a room's document, markdown as GitHub writes it
// (tables, strikethrough, task lists, autolinks), to HTML that runs
// nothing: raw HTML in the document is left out (goldmark's default), a
// link or image whose target is not http, https or mailto (or, for an
// image, an inline png, gif, jpeg or webp) is shown as its text alone,
// and every link is rel="nofollow noopener noreferrer". src must already
// have its control characters written out (render.Text).
//
// A member writes the document, so its rendering is bounded: a document
// that would take goldmark longer than renderTime (some shapes cost it
// time that grows with the square of their size, such as thousands of
// nested quotes) is shown as its text instead, escaped, with a line
// saying why; a table past the document's maxTableCells cells stays a
// paragraph of its lines. The HTML of the documents read last is kept,
// so a page read again costs no rendering.
func markdownHTML(src string) template.HTML {
	key := sha256.Sum256([]byte(src))
	if out, ok := rendered.get(key); ok {
		return out
	}
	out := renderMarkdown(src)
	rendered.put(key, out)
	return out
}

// The bounds of rendering one document.
const (
	// renderTime is the longest a document's markdown is parsed for.
	renderTime = 2 * time.Second
	// maxTableCells bounds the cells of a document's tables: a table
	// has as many cells in every row as its header has, so a short
	// text could otherwise make millions.
	maxTableCells = 1 << 18
	// maxRefLines is the longest paragraph whose link reference
	// definitions are read: goldmark reads them in time that grows with
	// the square of the paragraph's lines.
	maxRefLines = 4096
)

// tooSlow is the panic that ends the parse of a document that ran out of
// its time.
type tooSlow struct{}

// renderMarkdown renders src, or shows it as text when it runs out of
// its bounds.
func renderMarkdown(src string) (out template.HTML) {
	defer func() {
		// The budget's panic, or a fault of goldmark's on a text no one
		// thought of: either way the text is shown, escaped.
		switch recover().(type) {
		case nil:
		case tooSlow:
			out = asText(src, "This document is shown as text: it takes too long to show as markdown.")
		default:
			out = asText(src, "This document is shown as text: it could not be shown as markdown.")
		}
	}()
	source := []byte(src)
	b := &budget{deadline: time.Now().Add(renderTime), cells: maxTableCells}
	pc := parser.NewContext()
	pc.Set(budgetKey, b)
	doc := markdown.Parser().Parse(guardedReader{Reader: text.NewReader(source), b: b}, parser.WithContext(pc))
	var w bytes.Buffer
	if err := markdown.Renderer().Render(&w, source, doc); err != nil {
		// goldmark fails only when its writer does, which a
		// bytes.Buffer never does.
		return asText(src, "This document is shown as text: it could not be shown as markdown.")
	}
	return template.HTML(w.String())
}

// asText is src shown as text, escaped, after a line saying why.
func asText(src, why string) template.HTML {
	return template.HTML(`<p class="muted small">` + template.HTMLEscapeString(why) + `</p><pre class="doc">` +
		template.HTMLEscapeString(src) + `</pre>`)
}

// budget is what one document's rendering may still spend.
type budget struct {
	deadline time.Time
	calls    int
	// cells is how many table cells the document may still have.
	cells int
}

// spend counts one step of the parse, and ends the parse once it runs
// past its deadline (the clock is read every 64 steps).
func (b *budget) spend() {
	b.calls++
	if b.calls&63 == 0 && time.Now().After(b.deadline) {
		panic(tooSlow{})
	}
}

// budgetKey holds a parse's budget in its parser.Context.
var budgetKey = parser.NewContextKey()

func budgetOf(pc parser.Context) *budget { return pc.Get(budgetKey).(*budget) }

// guardedReader is the reader of a document's blocks: every block parser
// reads through it, so it counts their steps.
type guardedReader struct {
	text.Reader
	b *budget
}

func (r guardedReader) Peek() byte                       { r.b.spend(); return r.Reader.Peek() }
func (r guardedReader) PeekLine() ([]byte, text.Segment) { r.b.spend(); return r.Reader.PeekLine() }
func (r guardedReader) LineOffset() int                  { r.b.spend(); return r.Reader.LineOffset() }
func (r guardedReader) Advance(n int)                    { r.b.spend(); r.Reader.Advance(n) }
func (r guardedReader) AdvanceLine()                     { r.b.spend(); r.Reader.AdvanceLine() }

// guardedInline is an inline parser whose steps are counted.
type guardedInline struct{ parser.InlineParser }

func (g guardedInline) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	budgetOf(pc).spend()
	return g.InlineParser.Parse(parent, block, pc)
}

// guardedCloser is a guardedInline that also closes blocks.
type guardedCloser struct {
	guardedInline
	closer parser.CloseBlocker
}

func (g guardedCloser) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	g.closer.CloseBlock(parent, block, pc)
}

// guardedRefs reads the link reference definitions of paragraphs of at
// most maxRefLines lines.
type guardedRefs struct{ parser.ParagraphTransformer }

func (g guardedRefs) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	budgetOf(pc).spend()
	if node.Lines().Len() <= maxRefLines {
		g.ParagraphTransformer.Transform(node, reader, pc)
	}
}

// guardedTable makes a table of a paragraph only while the document's
// tables stay within maxTableCells: a paragraph of n lines whose widest
// line has k pipes makes at most n*(k+1) cells.
type guardedTable struct{ parser.ParagraphTransformer }

func (g guardedTable) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	b := budgetOf(pc)
	b.spend()
	lines, widest := node.Lines(), 0
	for i := range lines.Len() {
		line := lines.At(i)
		widest = max(widest, bytes.Count(line.Value(reader.Source()), []byte("|")))
	}
	if widest == 0 {
		return
	}
	cells := lines.Len() * (widest + 1)
	if cells > b.cells {
		return
	}
	before := node.Parent()
	g.ParagraphTransformer.Transform(node, reader, pc)
	if node.Parent() != before || node.Parent() == nil {
		b.cells -= cells
	}
}

// markdown is the document's renderer: GFM, no raw HTML (no WithUnsafe),
// no attribute syntax, every parser counted against the parse's budget,
// and linkTargets over every link and image.
var markdown = newMarkdown()

// newMarkdown makes the renderer: goldmark with the GFM extensions, whose
// parsers it collects (capture) and builds its own parser of, each
// wrapped in its guard.
func newMarkdown() goldmark.Markdown {
	gfm, table := parser.NewConfig(), parser.NewConfig()
	m := goldmark.New(goldmark.WithParser(capture{gfm}),
		goldmark.WithExtensions(extension.Linkify, extension.Strikethrough, extension.TaskList))
	m.SetParser(capture{table})
	// A cell's alignment as an attribute: the page's CSP allows no
	// style attribute.
	extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)).Extend(m)
	var blocks, inlines, paragraphs util.PrioritizedSlice
	blocks = append(parser.DefaultBlockParsers(), gfm.BlockParsers...)
	for _, v := range append(parser.DefaultInlineParsers(), gfm.InlineParsers...) {
		g := guardedInline{v.Value.(parser.InlineParser)}
		if c, ok := v.Value.(parser.CloseBlocker); ok {
			inlines = append(inlines, util.Prioritized(guardedCloser{g, c}, v.Priority))
		} else {
			inlines = append(inlines, util.Prioritized(g, v.Priority))
		}
	}
	for _, v := range parser.DefaultParagraphTransformers() {
		paragraphs = append(paragraphs, util.Prioritized(guardedRefs{v.Value.(parser.ParagraphTransformer)}, v.Priority))
	}
	for _, v := range table.ParagraphTransformers {
		paragraphs = append(paragraphs, util.Prioritized(guardedTable{v.Value.(parser.ParagraphTransformer)}, v.Priority))
	}
	transformers := append(append(gfm.ASTTransformers, table.ASTTransformers...), util.Prioritized(linkTargets{}, 0))
	m.SetParser(parser.NewParser(parser.WithBlockParsers(blocks...), parser.WithInlineParsers(inlines...),
		parser.WithParagraphTransformers(paragraphs...), parser.WithASTTransformers(transformers...)))
	return m
}

// capture is a parser that only keeps the options extensions add to it.
type capture struct{ cfg *parser.Config }

func (c capture) Parse(text.Reader, ...parser.ParseOption) ast.Node { return ast.NewDocument() }

func (c capture) AddOptions(opts ...parser.Option) {
	for _, o := range opts {
		o.SetParserOption(c.cfg)
	}
}

// linkRel is the rel of every link of a document: a member's link is
// vouched for by no one, and the page it opens gets no hold on this one.
var linkRel = []byte("nofollow noopener noreferrer")

// linkTargets unlinks every link and image whose target a browser could
// run or open as something other than a web page, and marks the others
// with linkRel. goldmark already empties the href of javascript:,
// vbscript:, file: and data: (but for images) targets; this filter allows
// only what the page needs, so a scheme goldmark does not know is no way
// in either.
type linkTargets struct{}

// Transform implements parser.ASTTransformer.
func (linkTargets) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	source := reader.Source()
	var unlink []ast.Node
	var linked []*ast.Image
	var label []*ast.AutoLink
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !safeTarget(string(util.URLEscape(n.Destination, true)), false) {
				unlink = append(unlink, n)
				return ast.WalkContinue, nil
			}
			n.SetAttributeString("rel", linkRel)
		case *ast.Image:
			dest := string(util.URLEscape(n.Destination, true))
			switch {
			case !safeTarget(dest, true):
				unlink = append(unlink, n)
			case remoteImage(dest):
				linked = append(linked, n)
			}
		case *ast.AutoLink:
			url := string(util.URLEscape(n.URL(source), false))
			if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
				url = "mailto:" + url
			}
			if !safeTarget(url, false) {
				label = append(label, n)
				return ast.WalkSkipChildren, nil
			}
			n.SetAttributeString("rel", linkRel)
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unlink {
		parent := n.Parent()
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, n, c)
			c = next
		}
		parent.RemoveChild(parent, n)
	}
	for _, n := range label {
		n.Parent().ReplaceChild(n.Parent(), n, ast.NewString(n.Label(source)))
	}
	for _, n := range linked {
		l := ast.NewLink()
		l.Destination, l.Title = n.Destination, n.Title
		l.SetAttributeString("rel", linkRel)
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			l.AppendChild(l, c)
			c = next
		}
		if !l.HasChildren() {
			l.AppendChild(l, ast.NewString(n.Destination))
		}
		n.Parent().ReplaceChild(n.Parent(), n, l)
	}
}

// remoteImage reports whether an image's target is on another site (an
// http or https URL, or one that starts with "//"), which the page's CSP
// (img-src 'self' data:) keeps from loading: such an image becomes a link
// to it, its alt text the link's text, rather than a broken picture, and
// the reader's browser asks the other site for nothing unless followed.
func remoteImage(url string) bool {
	url = strings.TrimLeftFunc(url, func(r rune) bool { return r <= ' ' })
	if strings.HasPrefix(url, "//") || strings.HasPrefix(url, `/\`) || strings.HasPrefix(url, `\`) {
		return true
	}
	scheme, _, ok := strings.Cut(url, ":")
	scheme = strings.ToLower(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, scheme))
	return ok && (scheme == "http" || scheme == "https")
}

// safeTarget reports whether a link's target (an image's, with image)
// may stay: one with no scheme (a path, a query, a fragment), or one of
// http, https, mailto, and for an image an inline png, gif, jpeg or webp.
// It reads the target as a browser does, which drops tabs and newlines
// anywhere and controls and spaces at the ends before it looks for a
// scheme.
func safeTarget(url string, image bool) bool {
	url = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, url)
	url = strings.TrimFunc(url, func(r rune) bool { return r <= ' ' })
	colon := strings.IndexByte(url, ':')
	if colon < 0 || strings.ContainsAny(url[:colon], "/?#") {
		return true
	}
	scheme := strings.ToLower(url[:colon])
	switch scheme {
	case "http", "https":
		return true
	case "mailto":
		return !image
	case "data":
		if !image {
			return false
		}
		for _, t := range []string{"image/png", "image/gif", "image/jpeg", "image/webp"} {
			rest := strings.ToLower(url[colon+1:])
			if strings.HasPrefix(rest, t+";") || strings.HasPrefix(rest, t+",") {
				return true
			}
		}
	}
	return false
}

// rendered keeps the HTML of the documents read last, by the hash of
// their text: a version of a document never changes, so neither does its
// HTML.
var rendered = newHTMLCache(16 << 20)

// htmlCache is a cache of rendered documents, the least recently read
// dropped first once their HTML passes a size.
type htmlCache struct {
	mu      sync.Mutex
	max     int
	size    int
	order   *list.List // of *cachedHTML, most recently read first
	entries map[[sha256.Size]byte]*list.Element
}

type cachedHTML struct {
	key  [sha256.Size]byte
	html template.HTML
}

func newHTMLCache(max int) *htmlCache {
	return &htmlCache{max: max, order: list.New(), entries: map[[sha256.Size]byte]*list.Element{}}
}

func (c *htmlCache) get(key [sha256.Size]byte) (template.HTML, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return "", false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedHTML).html, true
}

func (c *htmlCache) put(key [sha256.Size]byte, html template.HTML) {
	if len(html) > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return
	}
	c.entries[key] = c.order.PushFront(&cachedHTML{key: key, html: html})
	c.size += len(html)
	for c.size > c.max {
		last := c.order.Back()
		old := last.Value.(*cachedHTML)
		c.order.Remove(last)
		delete(c.entries, old.key)
		c.size -= len(old.html)
	}
}
