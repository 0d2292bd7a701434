package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// agentsDoc is what a reader takes from /agents.md: the hub's URL from
// its export line, the curl line of each step, and where each
// placeholder's value comes from.
type agentsDoc struct {
	hub   string
	steps map[int]string
	// from lists, for each placeholder, the answers its value is taken
	// from: a field of the answer to a step. A placeholder without any
	// is one the reader's team gives.
	from map[string][]source
}

type source struct {
	field string
	step  int
}

var (
	stepHeading = regexp.MustCompile(`^### (\d+)\. `)
	placeRow    = regexp.MustCompile("^\\| `([A-Z_]+)` \\| (.*) \\|$")
	placeFrom   = regexp.MustCompile("`([a-z_.]+)` of the answer to step (\\d+)")
)

// readAgents parses /agents.md as a reader follows it: every curl line of
// a sh block belongs to the step whose heading it is under; the
// placeholder table says where values come from.
func readAgents(t *testing.T, doc string) agentsDoc {
	t.Helper()
	d := agentsDoc{steps: map[int]string{}, from: map[string][]source{}}
	step, inSh := 0, false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inSh = !inSh && line == "```sh"
		case stepHeading.MatchString(line):
			step, _ = strconv.Atoi(stepHeading.FindStringSubmatch(line)[1])
		case inSh && strings.HasPrefix(line, "export STICK_HUB="):
			out, err := exec.Command("sh", "-c", line+`; printf %s "$STICK_HUB"`).Output()
			if err != nil {
				t.Fatalf("the export line %q: %v", line, err)
			}
			d.hub = string(out)
		case inSh && strings.HasPrefix(line, "curl "):
			if step == 0 || d.steps[step] != "" {
				t.Fatalf("a curl line outside a step, or a second one in step %d: %s", step, line)
			}
			d.steps[step] = line
		case placeRow.MatchString(line):
			m := placeRow.FindStringSubmatch(line)
			d.from[m[1]] = nil
			for _, f := range placeFrom.FindAllStringSubmatch(m[2], -1) {
				n, _ := strconv.Atoi(f[2])
				d.from[m[1]] = append(d.from[m[1]], source{f[1], n})
			}
		}
	}
	for n := 1; n <= len(d.steps); n++ {
		if d.steps[n] == "" {
			t.Fatalf("/agents.md has no curl line for step %d of %d", n, len(d.steps))
		}
	}
	return d
}

// reader is one agent following /agents.md with its own token: it fills
// in the placeholders as the document says and runs each step's line in
// a shell, as pasted, with the real curl.
type reader struct {
	t     *testing.T
	name  string
	doc   agentsDoc
	token string
	// vals are the placeholders' values so far.
	vals map[string]string
	ran  map[int]bool
}

func (d agentsDoc) reader(t *testing.T, name, token string, given map[string]string) *reader {
	r := &reader{t: t, name: name, doc: d, token: token, vals: map[string]string{}, ran: map[int]bool{}}
	for p, src := range d.from {
		if len(src) == 0 {
			v, ok := given[p]
			if !ok {
				t.Fatalf("/agents.md asks the team for %s, which this test does not know", p)
			}
			r.vals[p] = v
		}
	}
	return r
}

// run runs step n and returns its answer: the JSON object it printed, or
// its text when that is no JSON. It takes the placeholders the answer
// gives.
func (r *reader) run(n int) (map[string]any, string) {
	r.t.Helper()
	line := r.doc.steps[n]
	for p := range r.doc.from {
		if !strings.Contains(line, p) {
			continue
		}
		v, ok := r.vals[p]
		if !ok {
			r.t.Fatalf("%s: step %d needs %s, which no step it ran gave: %s", r.name, n, p, line)
		}
		line = regexp.MustCompile(`\b`+p+`\b`).ReplaceAllLiteralString(line, v)
	}
	if m := regexp.MustCompile(`\$\{?([A-Za-z_]+)`).FindAllStringSubmatch(line, -1); m != nil {
		for _, v := range m {
			if v[1] != "STICK_HUB" && v[1] != "STICK_TOKEN" {
				r.t.Fatalf("step %d uses $%s, which /agents.md does not define: %s", n, v[1], line)
			}
		}
	}
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "STICK_HUB=" + r.doc.hub, "STICK_TOKEN=" + r.token}
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("%s: step %d (%s): %v\n%s", r.name, n, line, err, out)
	}
	r.ran[n] = true
	var answer map[string]any
	if json.Unmarshal(out, &answer) != nil {
		return nil, string(out)
	}
	if e, ok := answer["error"]; ok {
		r.t.Fatalf("%s: step %d (%s) answered an error: %v", r.name, n, line, e)
	}
	for p, srcs := range r.doc.from {
		for _, s := range srcs {
			if s.step != n {
				continue
			}
			if v, ok := field(r.t, answer, s.field); ok {
				r.vals[p] = v
			}
		}
	}
	return answer, ""
}

// field is the value at the dotted path of an answer, as a reader writes
// it: a string as it is, a number in digits; false when the answer has
// none (a wait that did not give the turn has no lease_id).
func field(t *testing.T, answer map[string]any, path string) (string, bool) {
	t.Helper()
	var v any = answer
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		v = m[k]
	}
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case float64:
		return strconv.FormatInt(int64(x), 10), true
	}
	t.Fatalf("the answer's %s is %v, no value to put in a command", path, v)
	return "", false
}

// The whole session as /agents.md of a real hub prints it: two agents,
// each with its own token, run every curl line of the document with the
// real curl, filling in the placeholders as the document says. Alex
// creates the session (responsible for its conclusion) and waits for
// Bob; Alex's turn writes a note and the document and hands the stick to
// Bob, whose long poll gets the handoff; Bob works, follows the log and
// asks to close; the stick goes back to Alex with the request, and
// Alex's close with a conclusion ends the session for everyone.
func TestAgentsLoopWithCurl(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	data := t.TempDir()
	secrets, env := makeTokens(t, data, tokenSpec{"Alex's Team", stick.AccessAgent}, tokenSpec{"Bob's Team", stick.AccessAgent})
	h := startHub(t, data, env)
	anon := h.client("", "")
	a := anon.do(get, "/agents.md", nil)
	if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("Content-Type"), "text/markdown") {
		t.Fatalf("/agents.md without a token: %d %s\n%s", a.status, a.header.Get("Content-Type"), a.body)
	}
	doc := readAgents(t, string(a.body))
	if doc.hub != h.public || !strings.Contains(string(a.body), "`"+h.public+"/mcp`") {
		t.Fatalf("/agents.md names the hub %q, and the hub is %s", doc.hub, h.public)
	}
	given := map[string]string{"SESSION_NAME": "release-1.4-review", "MEMBERS": "2"}
	alex := doc.reader(t, "alex", secrets["Alex's Team"], given)
	bob := doc.reader(t, "bob", secrets["Bob's Team"], given)
	watch := h.client(secrets["Alex's Team"], "watcher")

	// 1, 2: Alex creates the session and waits for the team; Bob joins.
	j, _ := alex.run(1)
	if j["created"] != true || str(obj(j, "room"), "concluder") != "curl@alex-s-team" {
		t.Fatalf("alex's join: %v", j)
	}
	team := make(chan map[string]any, 1)
	go func() { m, _ := alex.run(2); team <- m }()
	watch.polls(1)
	if jb, _ := bob.run(1); jb["created"] != false || jb["room_id"] != j["room_id"] || str(obj(jb, "room"), "concluder") != "curl@alex-s-team" {
		t.Fatalf("bob's join: %v", jb)
	}
	if m := <-team; m["reached"] != true || len(list(m, "members")) != 2 {
		t.Fatalf("alex's wait for the team: %v", m)
	}
	if m, _ := bob.run(2); m["reached"] != true {
		t.Fatalf("bob's wait for the team: %v", m)
	}

	// 3 to 9: Alex's turn, handed to Bob's long poll.
	if w, _ := alex.run(3); str(w, "status") != "your_turn" {
		t.Fatalf("alex's wait: %v", w)
	}
	if _, md := alex.run(4); !strings.Contains(md, "# Room release-1.4-review") {
		t.Fatalf("alex reads the session:\n%s", md)
	}
	alex.run(5)
	if n, _ := alex.run(6); str(obj(n, "event"), "from_agent_id") != "curl@alex-s-team" {
		t.Fatalf("alex's note: %v", n)
	}
	if d, _ := alex.run(7); num(d, "version") != 0 {
		t.Fatalf("alex reads the document: %v", d)
	}
	if d, _ := alex.run(8); num(d, "version") != 1 {
		t.Fatalf("alex adds to the document: %v", d)
	}
	turn := make(chan map[string]any, 1)
	go func() { m, _ := bob.run(3); turn <- m }()
	watch.polls(1)
	if rel, _ := alex.run(9); str(rel, "reserved_for") != "curl@bob-s-team" {
		t.Fatalf("alex's release: %v", rel)
	}
	bt := <-turn
	if str(bt, "status") != "your_turn" || str(bt, "from_agent_id") != "curl@alex-s-team" ||
		str(obj(bt, "handoff"), "next_action") != "The one thing the next member should do first." {
		t.Fatalf("bob's wait did not get alex's handoff: %v", bt)
	}

	// Bob's turn: the handoff in the session's export, work, the log,
	// and the request to close.
	if _, md := bob.run(4); !strings.Contains(md, "Latest handoff") || !strings.Contains(md, "What I did, what I learned, what is unfinished.") {
		t.Fatalf("bob reads the session:\n%s", md)
	}
	bob.run(5)
	bob.run(6)
	if d, _ := bob.run(7); !strings.Contains(str(d, "content"), "A finding worth keeping") {
		t.Fatalf("bob reads the document: %v", d)
	}
	bob.run(8)
	if ev, _ := bob.run(10); len(list(ev, "events")) == 0 || ev["closed"] != false {
		t.Fatalf("bob follows the session: %v", ev)
	}
	asked, _ := bob.run(11)
	if asked["conclusion_requested"] != true || str(asked, "concluder") != "curl@alex-s-team" || asked["closed_at"] != nil {
		t.Fatalf("bob asks to close: %v", asked)
	}

	// Alex sees the request in the log, gets the stick with it, and
	// closes the session with the conclusion.
	if ev, _ := alex.run(10); !slices.ContainsFunc(list(ev, "events"), func(e any) bool {
		return str(e.(map[string]any), "reason") == stick.ReasonConclusionRequested
	}) {
		t.Fatalf("alex's log has no request to close: %v", ev)
	}
	w, _ := alex.run(3)
	if str(w, "status") != "your_turn" || !strings.Contains(str(obj(w, "handoff"), "next_action"), "responsible for this room's conclusion") ||
		!strings.Contains(str(obj(w, "handoff"), "status"), "What was done, what was decided") {
		t.Fatalf("alex's turn with the request: %v", w)
	}
	closed, _ := alex.run(11)
	if closed["conclusion_requested"] != nil || str(closed, "closed_at") == "" || num(closed, "doc_version") != 3 {
		t.Fatalf("alex closes: %v", closed)
	}

	// Everyone sees the end; the session keeps what was written.
	for i := 0; ; i++ {
		ev, _ := bob.run(10)
		if ev["closed"] == true {
			break
		}
		if i == 10 {
			t.Fatalf("bob never saw the session closed: %v", ev)
		}
	}
	if w, _ := bob.run(3); str(w, "status") != "closed" {
		t.Fatalf("bob's wait after the close: %v", w)
	}
	room := "/api/v1/rooms/" + str(j, "room_id")
	st := watch.ok(get, room, nil)
	dc := watch.ok(get, room+"/doc", nil)
	if str(st, "state") != "closed" || !strings.Contains(str(dc, "content"), "## Conclusion") ||
		!strings.Contains(str(dc, "content"), "where to pick it up") || strings.Count(str(dc, "content"), "A finding worth keeping") != 2 {
		t.Fatalf("the session after its end: %v\n%v", st, dc)
	}
	notes := 0
	for _, e := range list(watch.ok(get, room+"/events?limit=1000", nil), "events") {
		if str(e.(map[string]any), "event_type") == "note" {
			notes++
		}
	}
	if notes != 2 {
		t.Fatalf("%d notes, want one of each agent", notes)
	}
	for n := range doc.steps {
		if !alex.ran[n] && !bob.ran[n] {
			t.Errorf("nobody ran step %d: %s", n, doc.steps[n])
		}
	}
	if len(doc.steps) != 11 {
		t.Errorf("/agents.md has %d steps, this test follows 11", len(doc.steps))
	}
}
