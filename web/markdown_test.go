package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"golang.org/x/net/html"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/web"
)

// md renders a member's document as the page does: controls written out
// (render.Text), then markdown.
func md(src string) string { return string(web.MarkdownHTML(render.Text(src))) }

func TestMarkdownRendersGFM(t *testing.T) {
	src := "# Plan\n\nSome *emphasis*, **strong** and `code`.\n\n" +
		"## Steps\n\n- one\n- two\n  1. nested\n\n" +
		"```go\nfunc main() {}\n```\n\n" +
		"| name | state |\n|:-----|------:|\n| lexer | done |\n\n" +
		"~~dropped~~\n\n- [x] parser\n- [ ] lexer\n\n" +
		"> a quote\n\n" +
		"See https://example.com/docs and [the spec](https://example.com/spec \"Spec\"), mail <ops@example.com>.\n\n" +
		"![logo](/static/logo.png)\n"
	out := md(src)
	for _, want := range []string{
		"<h1>Plan</h1>", "<h2>Steps</h2>", "<em>emphasis</em>", "<strong>strong</strong>", "<code>code</code>",
		"<ul>\n<li>one</li>", "<ol>\n<li>nested</li>", `<pre><code class="language-go">func main() {}`,
		"<table>", `<th align="left">name</th>`, `<td align="right">done</td>`, "<del>dropped</del>",
		`<input checked="" disabled="" type="checkbox"> parser`, "<blockquote>",
		`<a href="https://example.com/docs" rel="nofollow noopener noreferrer">https://example.com/docs</a>`,
		`<a href="https://example.com/spec" title="Spec" rel="nofollow noopener noreferrer">the spec</a>`,
		`<a href="mailto:ops@example.com" rel="nofollow noopener noreferrer">ops@example.com</a>`,
		`<img src="/static/logo.png" alt="logo">`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the rendering lacks %q:\n%s", want, out)
		}
	}
	checkHTML(t, "gfm", out)
}

// hostileDoc is markdown a member may write to run a script on the page
// or send its reader elsewhere; each must come out inert.
var hostileDoc = []string{
	"<script>alert(1)</script>",
	"<img src=x onerror=alert(1)>",
	"<svg onload=alert(1)><iframe src=javascript:alert(1)></iframe>",
	`<a href="data:text/html,<script>alert(1)</script>">x</a>`,
	"[x](javascript:alert(1))",
	"[x](JaVaScRiPt:alert(1))",
	"[x](<javascript:alert(1)>)",
	"[x](&#106;avascript:alert(1))",
	"[x](java&#x09;script:alert(1))",
	"[x](javascript&colon;alert(1))",
	"[x](vbscript:msgbox(1))",
	"[x](file:///etc/passwd)",
	"[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
	"[x](intent://evil#Intent;end)",
	"![x](javascript:alert(1))",
	"![x](data:image/svg+xml,<svg onload=alert(1)>)",
	"<javascript:alert(1)>",
	"<vbscript:alert(1)>",
	"[ref]\n\n[ref]: javascript:alert(1)",
	"[x](https://example.com \"\\\" onmouseover=alert(1) x=\\\"\")",
	"`<script>alert(1)</script>`",
	"<div onclick=alert(1)>*x*</div>",
	"[x](https://ok.example) <style>body{}</style> <form action=/signout method=post></form>",
	"\x1b[31mred\x1b[0m and \u202eevil\u202c",
	"{onclick=alert(1)}\n# heading {onclick=alert(1)}",
}

func TestMarkdownHostile(t *testing.T) {
	for _, src := range hostileDoc {
		out := md(src)
		checkHTML(t, src, out)
		if strings.Contains(out, "alert(1)</script>") && !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%q: %s", src, out)
		}
	}
	// A dropped link keeps its text; a kept one its target.
	if out := md("[click me](javascript:alert(1)) and [ok](https://example.com)"); !strings.Contains(out, "click me") ||
		!strings.Contains(out, `href="https://example.com"`) {
		t.Errorf("links: %s", out)
	}
	if out := md("![pixel](data:image/png;base64,iVBORw0KGgo=)"); !strings.Contains(out, `src="data:image/png;base64,iVBORw0KGgo="`) {
		t.Errorf("an inline png is dropped: %s", out)
	}
	all := strings.Join(hostileDoc, "\n\n")
	big := strings.Repeat(all+"\n\n", stick.MaxDocLen/(len(all)+2))
	start := time.Now()
	out := md(big)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("a 1 MB hostile document took %v", d)
	}
	checkHTML(t, "1 MB hostile", out)
}

// TestGoldmarkDefaults: goldmark on its own, as configured by default
// (no WithUnsafe), leaves raw HTML out and empties the target of
// javascript:, vbscript:, file: and data: links; the page relies on both.
// What it lets through, a link to any other scheme such as intent:, the
// page's own filter drops (TestMarkdownHostile).
func TestGoldmarkDefaults(t *testing.T) {
	plain := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, src := range hostileDoc {
		var b strings.Builder
		if err := plain.Convert([]byte(render.Text(src)), &b); err != nil {
			t.Fatal(err)
		}
		inspectHTML(t, "goldmark: "+src, b.String(), false)
		if strings.Contains(src, "intent:") && !strings.Contains(b.String(), `href="intent:`) {
			t.Logf("goldmark now drops intent: links too: %s", b.String())
		}
	}
}

func TestSafeTarget(t *testing.T) {
	for url, image := range map[string]bool{"https://a.example/x": false, "http://a": false, "mailto:a@b": false,
		"/rooms/x": false, "#h": false, "?q=1": false, "a/b:c": false, "data:image/png;base64,AA": true, "DATA:IMAGE/GIF,x": true} {
		if !web.SafeTarget(url, image) {
			t.Errorf("%q (image %v) is refused", url, image)
		}
	}
	for url, image := range map[string]bool{"javascript:alert(1)": false, " JavaScript:x": false, "java\tscript:x": false,
		"\x01javascript:x": false, "vbscript:x": false, "file:///etc": false, "data:text/html,x": false, "data:image/png,x": false,
		"data:image/svg+xml,x": true, "mailto:a@b": true, "ftp://a": false, "blob:https://a/x": false, "intent://x": false} {
		if web.SafeTarget(url, image) {
			t.Errorf("%q (image %v) is allowed", url, image)
		}
	}
}

// TestMarkdownBounded: shapes that cost goldmark time that grows with
// the square of their size, or a table whose rows each get as many cells
// as its header, render (as text, if need be) in bounded time.
func TestMarkdownBounded(t *testing.T) {
	n := stick.MaxDocLen
	for name, src := range map[string]string{
		"nested quotes":   strings.Repeat(">", n),
		"open links":      strings.Repeat("[a](", n/4),
		"nested brackets": strings.Repeat("[", n/2) + strings.Repeat("]", n/2),
		"wide table":      "|" + strings.Repeat("a|", 1000) + "\n|" + strings.Repeat("-|", 1000) + "\n" + strings.Repeat("|x\n", (n-4004)/3),
		"link references": strings.Repeat("[a]: b\n", n/14) + strings.Repeat("[a] ", n/8),
		"plain 1 MB":      strings.Repeat("## Section\n\nSome *text* with `code` and a [link](https://example.com).\n\n", n/80),
	} {
		start := time.Now()
		out := md(src)
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: %v", name, d)
		}
		if len(out) > 16*n {
			t.Errorf("%s: %d bytes of HTML", name, len(out))
		}
		checkHTML(t, name, out)
	}
	if out := md(strings.Repeat(">", 1<<20)); !strings.Contains(out, "shown as text") {
		t.Errorf("a document past its time is not shown as text: %.200s", out)
	}
}

// checkHTML fails when html, as a browser would read it, holds anything
// that runs or loads a script, an event handler, a style, or a link or
// image whose target is not http, https, mailto, a path on this hub, or
// (for an image) an inline raster picture; or a link without rel
// "nofollow noopener noreferrer"; or a raw control character. The page's
// own script and stylesheet are allowed.
func checkHTML(t *testing.T, where, page string) {
	t.Helper()
	inspectHTML(t, where, page, true)
}

// inspectHTML is checkHTML; without strict, it lets links and images
// with any target but javascript:, vbscript:, file: and data: (but for
// an inline raster image) pass, and links without rel.
func inspectHTML(t *testing.T, where, page string, strict bool) {
	t.Helper()
	if len(where) > 60 {
		where = where[:60]
	}
	if strings.ContainsAny(page, "\x1b\u202e") {
		t.Errorf("%q: a raw control character reached the HTML", where)
	}
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		attr := map[string]string{}
		for _, a := range tok.Attr {
			attr[strings.ToLower(a.Key)] = a.Val
			switch k := strings.ToLower(a.Key); {
			case strings.HasPrefix(k, "on"), k == "style", k == "srcdoc", k == "formaction":
				t.Errorf("%q: <%s %s=%q>", where, tok.Data, a.Key, a.Val)
			case k == "href" || k == "src" || k == "action" || k == "poster" || k == "background":
				if bad := badTarget(a.Val, tok.Data == "img", strict); bad {
					t.Errorf("%q: <%s %s=%q>", where, tok.Data, a.Key, a.Val)
				}
			}
		}
		switch tok.Data {
		case "script":
			if src := attr["src"]; src != "/static/app.js" && src != "/static/controls.js" {
				t.Errorf("%q: a script: %s", where, tok.String())
			}
		case "link":
			if attr["href"] != "/static/style.css" {
				t.Errorf("%q: a link: %s", where, tok.String())
			}
		case "iframe", "object", "embed", "base", "frame", "frameset", "svg", "math", "style", "applet", "portal":
			t.Errorf("%q: <%s>", where, tok.Data)
		case "a":
			href, ok := attr["href"]
			if strict && ok && href != "" && !strings.HasPrefix(href, "/") && !strings.HasPrefix(href, "#") && attr["rel"] != "nofollow noopener noreferrer" {
				t.Errorf("%q: a link without rel: %s", where, tok.String())
			}
		}
	}
}

// badTarget reports whether a link's target (an image's, with image) is
// one the page must not hold: read as a browser does, without the spaces
// and controls it drops, anything with a scheme other than http, https,
// mailto, or an inline raster picture for an image; without strict, only
// javascript:, vbscript:, file: and data: but an inline raster picture.
func badTarget(v string, image, strict bool) bool {
	v = strings.ToLower(strings.Map(func(r rune) rune {
		if r <= ' ' {
			return -1
		}
		return r
	}, v))
	colon := strings.IndexByte(v, ':')
	if colon < 0 || strings.ContainsAny(v[:colon], "/?#") {
		return false
	}
	switch v[:colon] {
	case "http", "https":
		return false
	case "javascript", "vbscript", "file":
		return true
	case "mailto":
		return image
	case "data":
		for _, ok := range []string{"data:image/png", "data:image/gif", "data:image/jpeg", "data:image/webp"} {
			if image && strings.HasPrefix(v, ok) {
				return false
			}
		}
		return true
	}
	return strict
}

// An image on another site, which the page's CSP (img-src 'self' data:)
// would never load, is a link to it, its alt text the link's; an inline
// picture and one of the hub's own stay images, and the CSP loads them.
func TestRemoteImageIsALink(t *testing.T) {
	for src, want := range map[string]string{
		`![a chart](https://example.com/c.png "Chart")`: `<a href="https://example.com/c.png" title="Chart" rel="nofollow noopener noreferrer">a chart</a>`,
		"![*bold* alt](HTTP://example.com/b.png)":       `<a href="HTTP://example.com/b.png" rel="nofollow noopener noreferrer"><em>bold</em> alt</a>`,
		"![](http://example.com/e.png)":                 `<a href="http://example.com/e.png" rel="nofollow noopener noreferrer">http://example.com/e.png</a>`,
		"![far](//example.com/p.png)":                   `<a href="//example.com/p.png" rel="nofollow noopener noreferrer">far</a>`,
		"![logo](/static/logo.png)":                     `<img src="/static/logo.png" alt="logo">`,
		"![dot](data:image/png;base64,iVBORw0KGgo=)":    `<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot">`,
	} {
		out := md(src)
		if !strings.Contains(out, want) {
			t.Errorf("%s: %s", src, out)
		}
		if strings.Contains(want, "<a ") && strings.Contains(out, "<img") {
			t.Errorf("%s: still an image: %s", src, out)
		}
		checkHTML(t, src, out)
	}
}
