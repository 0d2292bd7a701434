package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// searchScene is two rooms with notes, a handoff and documents to search:
// the workspace's room, and a nested room in pkg.
func searchScene(t *testing.T) (s *scene, room, nested string) {
	s = newScene(t)
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room = s.roomID(s.repo)
	s.clock.Advance(time.Minute)
	s.ok("note", "--path", s.repo, "the lexer is slow on big files")
	s.clock.Advance(time.Minute)
	s.ok("note", "--path", s.repo, "--agent", "codex:1", "--type", "question", "parser, parser: should the parser recover after a bad token?")
	s.clock.Advance(time.Minute)
	s.ok("note", "--path", s.repo, "a long note about the week: the build got faster, the docs moved, the release slipped a day, "+
		"and somebody mentioned the parser once in passing among all the other news")
	s.clock.Advance(time.Minute)
	s.release(codex, s.claim(codex, room), sampleHandoff) // "parser done\nlexer untouched"
	s.clock.Advance(time.Minute)
	s.ok("doc", "append", "--path", s.repo, "--section", "Decisions", "Rewrite the parser before the lexer.")
	pkg := s.mkdir("pkg")
	s.join("human:ana", pkg, true)
	nested = s.roomID(pkg)
	s.clock.Advance(time.Minute)
	s.ok("note", "--path", pkg, "the pkg parser needs a fuzz target")
	return s, room, nested
}

func TestGoldenSearch(t *testing.T) {
	s, room, _ := searchScene(t)
	tr := &transcript{s: s}
	tr.run("", "search", "parser")
	tr.run("", "search", "parser", "--type", "question")
	tr.run("", "search", "parser", "--from", "codex:1", "--limit", "1")
	tr.run("", "search", "lex*", "--room", room)
	tr.run("", "search", "parser", "--type", "document")
	tr.run("", "search", `"bad token"`, "OR", "fuzz")
	tr.run("", "search", "zebra")
	tr.run("", "search", "parser", "--limit", "500")
	tr.run("", "search", "***")
	tr.run("", "search", "parser", "--room", "room_0000000000000000")
	tr.run("", "search", "parser", "--limit", "x")
	tr.run("", "search")
	tr.check("search")
}

// The best match comes first: the short question that says "parser" three
// times before the long note that says it once; scores never increase down
// the list; --room, --type and --from filter.
func TestJSONSearch(t *testing.T) {
	s, room, nested := searchScene(t)
	var hits []stick.SearchHit
	s.decodeJSON(&hits, "search", "parser")
	if len(hits) < 5 {
		t.Fatalf("search parser: %d hits: %+v", len(hits), hits)
	}
	best := hits[0]
	if best.RoomID != room || best.RoomPath != s.repo || best.Type != "question" || best.EventSeq != 4 || best.From != "codex:1" ||
		best.DocVersion != 0 || !strings.Contains(best.Snippet, "**parser**") {
		t.Errorf("best hit: %+v", best)
	}
	checkTime(t, "best hit created_at", best.CreatedAt, goldenStart.Add(2*time.Minute))
	rank := map[int64]int{}
	rooms := map[string]bool{}
	for i, h := range hits {
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hit %d scores %v, more than hit %d's %v", i, h.Score, i-1, hits[i-1].Score)
		}
		rank[h.EventSeq] = i
		rooms[h.RoomID] = true
	}
	if rank[4] > rank[5] {
		t.Errorf("the question (#4) must rank above the long note (#5): %+v", hits)
	}
	if !rooms[room] || !rooms[nested] {
		t.Errorf("search must cover every room: %v", rooms)
	}
	var doc *stick.SearchHit
	for i := range hits {
		if hits[i].Type == stick.DocumentHit {
			doc = &hits[i]
		}
	}
	if doc == nil || doc.EventSeq != 0 || doc.DocVersion != 1 || doc.RoomID != room || doc.From != "human:ana" {
		t.Errorf("document hit: %+v", doc)
	}

	hits = nil
	s.decodeJSON(&hits, "search", "parser", "--room", nested)
	if len(hits) != 1 || hits[0].RoomID != nested || hits[0].RoomPath != s.repo+"/pkg" {
		t.Errorf("--room: %+v", hits)
	}
	hits = nil
	s.decodeJSON(&hits, "search", "parser", "--type", "release", "--from", "codex:1")
	if len(hits) != 1 || hits[0].Type != "release" || hits[0].EventSeq != 7 || !strings.Contains(hits[0].Snippet, "**parser** done") {
		t.Errorf("--type release --from codex:1: %+v", hits)
	}
	hits = nil
	out := s.ok("search", "zebra", "--json")
	if err := json.Unmarshal([]byte(out), &hits); err != nil || strings.TrimSpace(out) != "[]" {
		t.Errorf("no hits must print an empty array: %q", out)
	}
	hits = nil
	s.decodeJSON(&hits, "search", "parser", "--limit", "2")
	if len(hits) != 2 {
		t.Errorf("--limit 2: %d hits", len(hits))
	}
}

// search reads without joining: a caller who is in no room finds the same.
func TestSearchNeedsNoMembership(t *testing.T) {
	s, _, _ := searchScene(t)
	var mine, theirs []stick.SearchHit
	s.decodeJSON(&mine, "search", "parser")
	s.decodeJSON(&theirs, "search", "parser", "--agent", "stranger")
	if len(mine) == 0 || len(mine) != len(theirs) {
		t.Errorf("a stranger's search: %d hits, a member's %d", len(theirs), len(mine))
	}
	st, err := s.svc.RoomState(context.Background(), s.roomID(s.repo))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range st.Members {
		if m.AgentID == "stranger" {
			t.Errorf("search made the caller a member: %+v", st.Members)
		}
	}
}

// Through the binary: search needs no path and no room of its own; it
// finds what another workspace's room holds.
func TestBinarySearch(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	b.ok(t, "join")
	b.ok(t, "note", "--type", "decision", "we keep the flaky test quarantined")
	elsewhere := t.TempDir()
	r := runBin(t, elsewhere, b.env, "search", "flaky", "quarantined")
	lines := strings.Split(r.stdout, "\n")
	if r.code != 0 || r.stderr != "" || len(lines) != 3 || lines[0] != b.repo+"  #2  decision  human:ana  just now" ||
		lines[1] != "  we keep the **flaky** test **quarantined**" {
		t.Errorf("search from elsewhere: %+v", r)
	}
	var hits []stick.SearchHit
	if err := json.Unmarshal([]byte(runBin(t, elsewhere, b.env, "search", "flaky", "--json").stdout), &hits); err != nil || len(hits) != 1 || hits[0].Type != "decision" {
		t.Errorf("search --json: %v %+v", err, hits)
	}
	if r := runBin(t, elsewhere, b.env, "search", "nothing"); r.code != 0 || r.stdout != "no matches for nothing; try fewer words, a prefix such as pars*, or OR between words\n" {
		t.Errorf("no matches: %+v", r)
	}
	checkFailure(t, "search --frobnicate", b.run(t, "search", "x", "--frobnicate"), 2, "stick: unknown flag: --frobnicate", usage("search"))
	checkFailure(t, "search --limit -1", b.run(t, "search", "x", "--limit", "-1"), 2, "stick: invalid_argument: limit must be between 0 (the default, 20) and 200, got -1", "")
}

// On a terminal the matches are bold and an escaped "**" of the text shows
// as "**"; without colours the snippet stays as stick returns it. A snippet
// without escapes shows as it did before stick escaped them.
func TestHighlight(t *testing.T) {
	const b, off = "\x1b[1m", "\x1b[0m"
	term, plain := &printer{color: true}, &printer{}
	for _, tc := range []struct{ snippet, want string }{
		{"the **parser** needs a **fuzz** target", "the " + b + "parser" + off + " needs a " + b + "fuzz" + off + " target"},
		{`use \*\*kwargs in the **parser**`, "use **kwargs in the " + b + "parser" + off},
		{`a\*\***parser**\*\*b`, "a**" + b + "parser" + off + "**b"},
		{`**bold \*\* match**`, b + "bold ** match" + off},
		{`\*\*only escapes\*\*`, "**only escapes**"},
		{"no match at all", "no match at all"},
		{"an **unclosed marker", "an **unclosed marker"},
		{"**a** and **unclosed", b + "a" + off + " and **unclosed"},
		{"empty ****", "empty "},
		{`a \* alone`, `a \* alone`},
		{"", ""},
	} {
		if got := highlight(term, tc.snippet); got != tc.want {
			t.Errorf("highlight on a terminal (%q) = %q, want %q", tc.snippet, got, tc.want)
		}
		if got := highlight(plain, tc.snippet); got != tc.snippet {
			t.Errorf("highlight without colours (%q) = %q, want it unchanged", tc.snippet, got)
		}
	}
}

// What 'stick search --help' promises about words holds: a word finds its
// other forms with the same stem, not another word that begins alike (a
// prefix does); the current document is searched, not what the log
// records of document writes.
func TestSearchHelpHolds(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	s.ok("note", "--path", s.repo, "two migrations ran overnight")
	s.ok("note", "--path", s.repo, "the parsers agree now")
	s.ok("note", "--path", s.repo, "parse errors went away")
	s.ok("note", "--path", s.repo, "we migrate at noon")
	found := func(query, text string) bool {
		t.Helper()
		var hits []stick.SearchHit
		s.decodeJSON(&hits, "search", query)
		for _, h := range hits {
			if strings.ReplaceAll(h.Snippet, "**", "") == text {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		query, text string
		want        bool
	}{
		{"migration", "two migrations ran overnight", true},
		{"parser", "the parsers agree now", true},
		{"parse", "the parsers agree now", false},
		{"pars*", "the parsers agree now", true},
		{"pars*", "parse errors went away", true},
		{"migration*", "two migrations ran overnight", true},
		{"migration*", "we migrate at noon", false},
		{"migration", "we migrate at noon", true},
	} {
		if got := found(tc.query, tc.text); got != tc.want {
			t.Errorf("search %s finds %q: %v, want %v", tc.query, tc.text, got, tc.want)
		}
	}

	// Text appended to the document and then edited out is in the log's
	// doc event, and is not found.
	s.ok("doc", "append", "--path", s.repo, "zeppelin plans")
	room := s.roomID(s.repo)
	ana := stick.Caller{AgentID: "human:ana", Kind: stick.KindOneShot}
	if _, err := s.svc.UpdateDoc(context.Background(), ana, room, "no plans\n", 1); err != nil {
		t.Fatal(err)
	}
	var hits []stick.SearchHit
	if s.decodeJSON(&hits, "search", "zeppelin"); len(hits) != 0 {
		t.Errorf("a word no longer in the document was found: %+v", hits)
	}

	help := s.ok("search", "--help")
	for _, claim := range []string{`"migration" also finds migrations`, `"parser" parsers`, `"parse" does not`, "a path in its workspace"} {
		if !strings.Contains(strings.Join(strings.Fields(help), " "), claim) {
			t.Errorf("search --help lacks %q:\n%s", claim, help)
		}
	}
	for _, wrong := range []string{"document appends", "also finds parser"} {
		if strings.Contains(strings.Join(strings.Fields(help), " "), wrong) {
			t.Errorf("search --help still says %q:\n%s", wrong, help)
		}
	}
}

// highlightUnescaped is highlight as it was before stick escaped a "**" of
// the text: the reference for snippets without escapes.
func highlightUnescaped(p *printer, snippet string) string {
	var b strings.Builder
	for rest := snippet; ; {
		i := strings.Index(rest, stick.HighlightStart)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		after := rest[i+len(stick.HighlightStart):]
		j := strings.Index(after, stick.HighlightEnd)
		if j < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		b.WriteString(p.Bold(after[:j]))
		rest = after[j+len(stick.HighlightEnd):]
	}
	return b.String()
}

// Every snippet of up to 7 characters of "*", "\", "a" and " " that holds
// no escaped "**" shows on a terminal exactly as it did before.
func TestHighlightWithoutEscapesUnchanged(t *testing.T) {
	term := &printer{color: true}
	alphabet := []byte{'*', '\\', 'a', ' '}
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		if s := string(prefix); !strings.Contains(s, stick.EscapedMarker) {
			if got, want := highlight(term, s), highlightUnescaped(term, s); got != want {
				t.Fatalf("highlight(%q) = %q, before %q", s, got, want)
			}
		}
		if len(prefix) == 7 {
			return
		}
		for _, c := range alphabet {
			walk(append(prefix, c))
		}
	}
	walk(nil)
}

// A prefix matches the words as written, also past their stem: migration*
// and migrati* find "migrations" (stem "migrat"), and migrations* does not
// find "migrate", which only shares the stem.
func TestSearchPrefixPastTheStem(t *testing.T) {
	s, _, _ := searchScene(t)
	s.ok("note", "--path", s.repo, "the migrations failed twice")
	s.ok("note", "--path", s.repo, "we migrate on Friday")
	for _, q := range []string{"migration*", "migrati*", "migrations*", "MIGRATION*"} {
		var hits []stick.SearchHit
		s.decodeJSON(&hits, "search", q)
		if len(hits) != 1 || hits[0].Snippet != "the **migrations** failed twice" {
			t.Errorf("search %s: %+v", q, hits)
		}
	}
	var hits []stick.SearchHit
	s.decodeJSON(&hits, "search", "migration")
	if len(hits) != 2 {
		t.Errorf("a whole word still finds every word of its stem: %+v", hits)
	}
	if out := s.ok("search", "failed", "migrati*"); !strings.Contains(out, "the **migrations** **failed** twice") {
		t.Errorf("a word and a prefix together: %s", out)
	}
}
