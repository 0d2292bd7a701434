package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// hubEnv is the environment of every stick process of a test: its data
// directory, and plain HTTP named by its address whatever the shell sets.
func hubEnv(data string) []string {
	return []string{"TALKING_STICK_DATA_DIR=" + data, "STICK_TLS_CERT=", "STICK_TLS_KEY=", "STICK_PUBLIC_URL=", "NO_COLOR=1"}
}

// startHub starts 'stick serve' on a free loopback port over the database
// in data and returns its URL once it listens. The test's cleanup stops it.
func startHub(t *testing.T, data string) string {
	t.Helper()
	p := testproc.StartEnv(t, hubEnv(data), "stick", "serve", "--addr", "127.0.0.1:0")
	line, err := p.ReadLine(60 * time.Second)
	if err != nil {
		t.Fatalf("stick serve did not start: %v\n%s", err, p.Stderr())
	}
	rest, ok := strings.CutPrefix(line, "stick serve: listening on ")
	url, _, _ := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("stick serve printed %q first", line)
	}
	return url
}

// stickCLI runs the stick command over the database in data and returns
// what it printed.
func stickCLI(t *testing.T, data string, args ...string) string {
	t.Helper()
	cmd := testproc.Command(t, "stick", args...)
	cmd.Env = append(cmd.Env, hubEnv(data)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("stick %s: exit %d\n%s%s", strings.Join(args, " "), ee.ExitCode(), out, stderr.String())
		}
		t.Fatalf("stick %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// makeToken makes a token with 'stick token create NAME --role ROLE' and
// returns its secret.
func makeToken(t *testing.T, data, name string, role stick.AccessRole) string {
	t.Helper()
	out := stickCLI(t, data, "token", "create", name, "--role", string(role), "--json")
	var created struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Secret == "" {
		t.Fatalf("stick token create --json printed %q: %v", out, err)
	}
	return created.Secret
}

// library is the test's own use of the library over a hub's database:
// another process than the hub, writing what the page then shows.
type library struct {
	t   *testing.T
	ctx context.Context
	svc *stick.Service
}

// openLibrary opens the database in data.
func openLibrary(t *testing.T, data string) *library {
	t.Helper()
	st, err := store.OpenDir(data, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := stick.New(st)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Shutdown()
		st.Close()
	})
	return &library{t: t, ctx: context.Background(), svc: svc}
}

// member is a member of the tests' rooms: an agent id, its harness and
// the name its client gives.
type member struct {
	id   string
	kind stick.SessionKind
	name string
}

func (m member) caller() stick.Caller {
	return stick.Caller{AgentID: m.id, Kind: m.kind, DisplayName: m.name}
}

// join joins the room named room as m and returns the room's id.
func (l *library) join(m member, room string) string {
	l.t.Helper()
	res, err := l.svc.JoinPath(l.ctx, m.caller(), stick.JoinRequest{Name: room})
	if err != nil {
		l.t.Fatalf("%s joins %s: %v", m.id, room, err)
	}
	return res.RoomID
}

// claim takes the stick of room as m.
func (l *library) claim(m member, room string) stick.Lease {
	l.t.Helper()
	wait := 10 * time.Second
	w, err := l.svc.WaitForTurn(l.ctx, m.caller(), stick.WaitRequest{RoomID: room, MaxWait: &wait})
	if err != nil || w.Status != stick.YourTurn {
		l.t.Fatalf("%s claims: %+v %v", m.id, w, err)
	}
	return w.Lease()
}

// pass hands the stick on to to (a member id) with h; "" releases it to
// whoever comes next.
func (l *library) pass(m member, lease stick.Lease, to string, h stick.Handoff) {
	l.t.Helper()
	var err error
	if to == "" {
		_, err = l.svc.Release(l.ctx, m.caller(), lease, h)
	} else {
		_, err = l.svc.Pass(l.ctx, m.caller(), lease, to, h)
	}
	if err != nil {
		l.t.Fatalf("%s hands on: %v", m.id, err)
	}
}

// post writes a note of type typ (answering event reply, 0 for none) and
// returns its event's seq.
func (l *library) post(m member, room, text string, typ stick.NoteType, reply int64) int64 {
	l.t.Helper()
	res, err := l.svc.Post(l.ctx, m.caller(), room, stick.Note{Text: text, Type: typ, ReplyTo: reply})
	if err != nil {
		l.t.Fatalf("%s posts: %v", m.id, err)
	}
	return res.Event.Seq
}

// writeDoc replaces the room's document, expecting version expected, and
// returns the new version.
func (l *library) writeDoc(m member, room, content string, expected int64) int64 {
	l.t.Helper()
	d, err := l.svc.UpdateDoc(l.ctx, m.caller(), room, content, expected)
	if err != nil {
		l.t.Fatalf("%s writes the document: %v", m.id, err)
	}
	return d.Version
}

// close closes the room with a conclusion.
func (l *library) close(m member, room, reason, conclusion string) {
	l.t.Helper()
	if _, err := l.svc.Close(l.ctx, m.caller(), room, reason, conclusion); err != nil {
		l.t.Fatalf("%s closes the room: %v", m.id, err)
	}
}

// doc is the room's document as stored now.
func (l *library) doc(room string) stick.Document {
	l.t.Helper()
	d, err := l.svc.ReadDoc(l.ctx, room, 0)
	if err != nil {
		l.t.Fatal(err)
	}
	return d
}

// The members of the tests' rooms.
var (
	claude = member{"claude-code:7f3a", stick.KindHarness, "Claude Code"}
	codex  = member{"codex:9b22", stick.KindHarness, "Codex CLI"}
	gemini = member{"gemini-cli:51c0", stick.KindHarness, "Gemini CLI"}
	ana    = member{"human:ana", stick.KindGuardian, "Ana"}
)

// signIn signs the tab in with a token through the sign-in form and
// lands on the rooms list.
func (b *tab) signIn(secret string) {
	b.t.Helper()
	b.page("/signin")
	b.do("typing the token", chromedp.SendKeys(chromedp.CSS("#token"), secret))
	b.submit("#token")
	if p := b.path(); p != "/" {
		b.t.Fatalf("signing in led to %s: %s", p, b.text("main"))
	}
}

// mustContain fails when the text of sel lacks any of wants.
func (b *tab) mustContain(sel string, wants ...string) {
	b.t.Helper()
	got := b.text(sel)
	for _, w := range wants {
		if !strings.Contains(got, w) {
			b.t.Errorf("%s on %s lacks %q:\n%s", sel, b.path(), w, got)
		}
	}
}

// noScriptRan fails when a script written by a member ran in the page: the
// hostile texts set window.pwned.
func (b *tab) noScriptRan() {
	b.t.Helper()
	if ran := eval[bool](b, `window.pwned === true`); ran {
		b.t.Errorf("a script written by a member ran on %s", b.path())
	}
	// The page's policy would stop most scripts even if escaping broke, so
	// the document itself must hold none: no script but the page's own,
	// no event handler attribute, no javascript: link.
	if bad := eval[string](b, `(() => {
	  for (const s of document.scripts) {
	    const src = s.getAttribute("src") || "";
	    if (!/^\/static\/[a-z]+\.js$/.test(src)) return "a script: " + s.outerHTML.slice(0, 200);
	  }
	  for (const el of document.querySelectorAll("*")) {
	    for (const a of el.attributes) {
	      if (/^on/i.test(a.name)) return "an event handler: " + el.outerHTML.slice(0, 200);
	      if (/^(href|src|action|formaction)$/i.test(a.name) && /^\s*javascript:/i.test(a.value)) return "a javascript: target: " + el.outerHTML.slice(0, 200);
	    }
	  }
	  return "";
	})()`); bad != "" {
		b.t.Errorf("member text became markup on %s: %s", b.path(), bad)
	}
}

// hostile is member text that would run a script if a page let it.
const hostile = `<script>window.pwned=true</script><img src=x onerror="window.pwned=true"><a href="javascript:window.pwned=true">link</a>` + "\x1b[31mred\x1b[0m"
