package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// The connect page shows the hub's URL, the install line with the file
// the token is read from, and the hub's instructions for agents, each
// with a copy button that only the script shows and text a reader
// without it can select; the instructions are text, never markup. Every
// reader finds it in the top bar.
func TestConnectPage(t *testing.T) {
	var e *env
	e = newEnv(t, false, withHub(&e, ""))
	v := e.visit(e.token("viewers", stick.AccessViewer, stick.Scope{}))
	rooms := v.get("/").body
	if !strings.Contains(rooms, `href="/connect"`) {
		t.Fatal("the top bar has no link to the connect page")
	}
	a := v.get("/connect")
	if a.status != http.StatusOK {
		t.Fatalf("connect: %d\n%s", a.status, a.body)
	}
	for _, want := range []string{
		`<pre id="copy-url" class="copy-text" tabindex="0">` + listenURL + `</pre>`,
		`<pre id="copy-install" class="copy-text" tabindex="0">stick install --all --server &#39;` + listenURL + `&#39; --token-file ~/.config/stick/token</pre>`,
		"# Working on the hub at " + listenURL, "&lt;script&gt;alert(1)&lt;/script&gt;",
		`data-copy="copy-agents"`, `data-copy="copy-install"`, `data-copy="copy-url"`, `role="status"`,
		`stick token create`, "Ask an operator",
	} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the connect page lacks %q", want)
		}
	}
	noRawScript(t, "connect", a.body)
	if strings.Count(a.body, "data-copy=") != strings.Count(a.body, " hidden>") {
		t.Error("a copy button shows without the script")
	}
	if strings.Contains(a.body, `href="/settings`) {
		t.Error("a viewer is sent to the settings")
	}
	if _, err := e.svc.SetPublicURL(e.ctx, "https://stick.example.com/"); err != nil {
		t.Fatal(err)
	}
	if b := v.get("/connect").body; !strings.Contains(b, "--server &#39;https://stick.example.com&#39;") || !strings.Contains(b, "# Working on the hub at https://stick.example.com") {
		t.Errorf("the connect page does not follow the public URL:\n%s", b)
	}
}

// On an open hub the install line reads no token file, and an operator
// is sent to the settings to make a token; a hub that tells nothing of
// itself says so.
func TestConnectOpenAndUnknown(t *testing.T) {
	var e *env
	e = newEnv(t, true, withHub(&e, ""))
	b := e.visit("").get("/connect").body
	if !strings.Contains(b, "--server &#39;"+listenURL+"&#39;</pre>") || !strings.Contains(b, `href="/settings#tokens"`) {
		t.Errorf("the connect page of an open hub:\n%s", b)
	}
	bare := newEnv(t, true)
	if a := bare.visit("").get("/connect"); a.status != http.StatusOK || !strings.Contains(a.body, "does not say how it is reached") {
		t.Errorf("a hub that tells nothing: %d\n%s", a.status, a.body)
	}
	if st, _ := e.get(e.client(), "/connect"); st != http.StatusOK {
		t.Errorf("connect on an open hub: %d", st)
	}
	shut := newEnv(t, false)
	if st, _ := shut.get(shut.client(), "/connect"); st != http.StatusSeeOther {
		t.Errorf("connect signed out: %d", st)
	}
}
