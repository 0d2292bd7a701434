package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// secretRe finds a secret on a page.
var secretRe = regexp.MustCompile(`stk_[0-9a-f]{64}`)

// An operator lists the tokens (never a secret nor a hash), makes one
// whose secret the answer shows once, in no URL or cookie, and which
// signs in; revoking it ends its sign-ins and its sessions.
func TestSettingsTokens(t *testing.T) {
	e := newEnv(t, false)
	ops := e.visit(e.token("ops", stick.AccessOperator, stick.Scope{}))
	e.token(`<script>alert(1)</script>`, stick.AccessViewer, stick.Scope{Names: []string{"triage"}, KeyPrefixes: []string{"github.com/acme/"}})
	if rooms := ops.get("/").body; !strings.Contains(rooms, `href="/settings"`) {
		t.Fatal("an operator has no link to the settings")
	}
	a := ops.get("/settings")
	if a.status != http.StatusOK {
		t.Fatalf("settings: %d\n%s", a.status, a.body)
	}
	noRawScript(t, "settings", a.body)
	for _, want := range []string{">ops<", "&lt;script&gt;alert(1)&lt;/script&gt;", "the rooms named triage", "github.com/acme/", ">operator<", ">viewer<",
		">active<", `<label for="token-name">`, `<label for="token-role">`, `<label for="token-expires">`, `action="/settings/tokens/revoke"`,
		`aria-label="Revoke the token &lt;script&gt;`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the settings lack %q", want)
		}
	}
	if secretRe.MatchString(a.body) {
		t.Fatal("the settings show a secret")
	}

	made := ops.post("/settings/tokens", url.Values{"name": {"Alex's Team"}, "role": {"agent"}, "rooms": {"alpha, beta"}, "expires": {"30d"}})
	secret := secretRe.FindString(made.body)
	if made.status != http.StatusOK || secret == "" || !strings.Contains(made.body, "will not be shown again") || !strings.Contains(made.body, `data-copy="secret"`) ||
		!strings.Contains(made.body, "Alex&#39;s Team") || !strings.Contains(made.body, "the rooms named alpha, beta") {
		t.Fatalf("make a token: %d\n%s", made.status, made.body)
	}
	if made.header.Get("Location") != "" || made.header.Get("Cache-Control") != "no-store" || strings.Contains(strings.Join(made.header.Values("Set-Cookie"), " "), secret) {
		t.Fatalf("the secret may outlive its page: %v", made.header)
	}
	toks, err := e.svc.ListTokens(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var alex stick.Token
	for _, tk := range toks {
		if tk.Name == "Alex's Team" {
			alex = tk
		}
	}
	if alex.Role != stick.AccessAgent || len(alex.Rooms.Names) != 2 || alex.ExpiresAt.IsZero() {
		t.Fatalf("the token made: %+v", alex)
	}
	if list := ops.get("/settings").body; strings.Contains(list, secret) || !strings.Contains(list, "Alex&#39;s Team") {
		t.Fatal("the list shows the new secret, or not the new token")
	}
	alexPage := e.visit(secret)
	if st := alexPage.get("/").status; st != http.StatusOK {
		t.Fatalf("the new token does not sign in: %d", st)
	}

	revoked := ops.post("/settings/tokens/revoke", url.Values{"token": {alex.ID}})
	if revoked.status != http.StatusSeeOther || !strings.HasPrefix(revoked.header.Get("Location"), "/settings?revoked="+alex.ID) {
		t.Fatalf("revoke: %d %v", revoked.status, revoked.header)
	}
	if notice := ops.get(revoked.header.Get("Location")).body; !strings.Contains(notice, "was revoked") || !strings.Contains(notice, ">revoked<") {
		t.Errorf("the settings after a revocation:\n%s", notice)
	}
	if st := alexPage.get("/").status; st != http.StatusSeeOther {
		t.Errorf("a session of a revoked token still reads: %d", st)
	}
	again := e.visit("")
	if a := again.post("/signin", url.Values{"token": {secret}}); a.status != http.StatusUnauthorized {
		t.Errorf("a revoked token signs in: %d", a.status)
	}
}

// A form the Service refuses shows the settings again with its message
// and the form as sent; nothing is made.
func TestSettingsTokenRefused(t *testing.T) {
	e := newEnv(t, true)
	v := e.visit("")
	for _, tc := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"name": {""}, "role": {"agent"}}, "must be non-empty"},
		{url.Values{"name": {"bo"}, "role": {"admin"}}, "none of viewer, agent and operator"},
		{url.Values{"name": {"bo"}, "role": {"agent"}, "expires": {"soon"}}, "the expiry &#34;soon&#34; is no duration"},
		{url.Values{"name": {"bo"}, "role": {"agent"}, "expires": {"-1d"}}, "must be positive"},
		{url.Values{"name": {"bo"}, "role": {"agent"}, "rooms": {"Not A Name!"}}, "rooms"},
	} {
		a := v.post("/settings/tokens", tc.form)
		if a.status != http.StatusBadRequest || !strings.Contains(a.body, tc.want) || !strings.Contains(a.body, `role="alert"`) || secretRe.MatchString(a.body) {
			t.Errorf("%v: %d, want 400 saying %q\n%s", tc.form, a.status, tc.want, a.body)
		}
		if name := tc.form.Get("name"); name != "" && !strings.Contains(a.body, `id="token-name" name="name" type="text" value="`+name+`"`) {
			t.Errorf("%v: the form is not shown as sent", tc.form)
		}
	}
	if toks, _ := e.svc.ListTokens(e.ctx); len(toks) != 0 {
		t.Fatalf("a refused form made a token: %+v", toks)
	}
	if a := v.post("/settings/tokens", url.Values{"name": {"bo"}, "csrf": {strings.Repeat("0", 64)}}); a.status != http.StatusForbidden {
		t.Fatalf("a form without its CSRF value: %d", a.status)
	}
	if toks, _ := e.svc.ListTokens(e.ctx); len(toks) != 0 {
		t.Fatal("a forged form made a token")
	}
}

// A viewer and an agent see no settings and no link to them, and their
// forged forms (with a good CSRF value) are refused by the Service and
// change nothing.
func TestSettingsOnlyOperators(t *testing.T) {
	e := newEnv(t, false)
	e.token("kept", stick.AccessAgent, stick.Scope{})
	toks, _ := e.svc.ListTokens(e.ctx)
	for _, role := range []stick.AccessRole{stick.AccessViewer, stick.AccessAgent} {
		v := e.visit(e.token(string(role)+" team", role, stick.Scope{}))
		if body := v.get("/").body; strings.Contains(body, `href="/settings"`) {
			t.Errorf("a %s has a link to the settings", role)
		}
		if a := v.get("/settings"); a.status != http.StatusForbidden || strings.Contains(a.body, "kept") {
			t.Errorf("a %s reads the settings: %d\n%s", role, a.status, a.body)
		}
		for path, form := range map[string]url.Values{
			"/settings/tokens":        {"name": {"forged"}, "role": {"operator"}},
			"/settings/tokens/revoke": {"token": {toks[0].ID}},
			"/settings/public-url":    {"public_url": {"https://evil.example"}},
		} {
			if a := v.post(path, form); a.status != http.StatusForbidden || secretRe.MatchString(a.body) {
				t.Errorf("a %s's forged %s: %d", role, path, a.status)
			}
		}
	}
	after, _ := e.svc.ListTokens(e.ctx)
	for _, tk := range after {
		if tk.Name == "forged" || tk.State != stick.TokenActive {
			t.Errorf("a forged form changed the tokens: %+v", tk)
		}
	}
	if st, _ := e.svc.HubSettings(e.ctx); st.PublicURL != "" {
		t.Errorf("a forged form set the public URL: %+v", st)
	}
}

// An operator sets the public URL; the hub takes it up at once (the page
// tells it), a bad URL gets the Service's message, an empty one goes
// back to the listening address, and an operator limited to some rooms
// may not set it.
func TestSettingsPublicURL(t *testing.T) {
	var e *env
	e = newEnv(t, false, withHub(&e, ""))
	ops := e.visit(e.token("ops", stick.AccessOperator, stick.Scope{}))
	page := ops.get("/settings").body
	if !strings.Contains(page, "Clients reach the hub by <code>"+listenURL+"</code>") || !strings.Contains(page, `<label for="public-url-field">`) ||
		strings.Contains(page, " disabled") {
		t.Fatalf("the public URL's settings:\n%s", page)
	}
	a := ops.post("/settings/public-url", url.Values{"public_url": {"https://stick.example.com/"}})
	if a.status != http.StatusSeeOther {
		t.Fatalf("set: %d\n%s", a.status, a.body)
	}
	if st, _ := e.svc.HubSettings(e.ctx); st.PublicURL != "https://stick.example.com" {
		t.Fatalf("stored: %+v", st)
	}
	after := ops.get(a.header.Get("Location")).body
	if !strings.Contains(after, "Clients reach the hub by <code>https://stick.example.com</code>") || !strings.Contains(after, `value="https://stick.example.com"`) ||
		!strings.Contains(after, "was saved") {
		t.Errorf("after setting:\n%s", after)
	}
	bad := ops.post("/settings/public-url", url.Values{"public_url": {`javascript:alert(1)//<script>`}})
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "is not an http or https URL") || strings.Contains(bad.body, "<script>") {
		t.Errorf("a bad URL: %d\n%s", bad.status, bad.body)
	}
	if st, _ := e.svc.HubSettings(e.ctx); st.PublicURL != "https://stick.example.com" {
		t.Fatalf("a bad URL changed the setting: %+v", st)
	}
	if a := ops.post("/settings/public-url", url.Values{"public_url": {""}}); a.status != http.StatusSeeOther {
		t.Fatalf("forget: %d", a.status)
	}
	if b := ops.get("/settings").body; !strings.Contains(b, "Clients reach the hub by <code>"+listenURL+"</code>") {
		t.Errorf("after forgetting:\n%s", b)
	}
	scoped := e.visit(e.token("acme ops", stick.AccessOperator, stick.Scope{KeyPrefixes: []string{"github.com/acme/"}}))
	if a := scoped.post("/settings/public-url", url.Values{"public_url": {"https://acme.example"}}); a.status != http.StatusForbidden || !strings.Contains(a.body, "every room") {
		t.Errorf("an operator of some rooms: %d\n%s", a.status, a.body)
	}
}

// A public URL the hub was started with wins: the page says so and its
// field and button are disabled.
func TestSettingsPublicURLFixed(t *testing.T) {
	var e *env
	e = newEnv(t, true, withHub(&e, "https://fixed.example.com"))
	page := e.visit("").get("/settings").body
	if !strings.Contains(page, "--public-url") || !strings.Contains(page, "wins over this setting") ||
		!regexp.MustCompile(`id="public-url-field"[^>]* disabled>`).MatchString(page) || !strings.Contains(page, `<button class="btn" type="submit" disabled>`) {
		t.Errorf("a fixed public URL:\n%s", page)
	}
}
