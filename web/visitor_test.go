package web_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/web"
)

// visitor is one browser on the page: its cookies, and the CSRF value
// the page gave it.
type visitor struct {
	e    *env
	c    *http.Client
	csrf string
}

// visit opens the page in a new browser; with a secret, it signs in.
func (e *env) visit(secret string) *visitor {
	e.t.Helper()
	v := &visitor{e: e, c: e.client()}
	e.page(v.c, "/signin")
	u, _ := url.Parse(e.srv.URL)
	for _, ck := range v.c.Jar.Cookies(u) {
		if ck.Name == "stick_csrf" {
			v.csrf = ck.Value
		}
	}
	if v.csrf == "" {
		e.t.Fatal("the page set no CSRF cookie")
	}
	if secret != "" {
		if resp := v.post("/signin", url.Values{"token": {secret}}); resp.status != http.StatusSeeOther {
			e.t.Fatalf("sign-in: %d\n%s", resp.status, resp.body)
		}
	}
	return v
}

// answer is a response, read whole.
type answer struct {
	status int
	header http.Header
	body   string
}

// post sends a form, with the visitor's CSRF value unless form has one.
func (v *visitor) post(path string, form url.Values) answer {
	v.e.t.Helper()
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", v.csrf)
	}
	resp, err := v.c.PostForm(v.e.srv.URL+path, form)
	if err != nil {
		v.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// get fetches a path.
func (v *visitor) get(path string) answer {
	v.e.t.Helper()
	resp, err := v.c.Get(v.e.srv.URL + path)
	if err != nil {
		v.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// token makes a token and returns its secret.
func (e *env) token(name string, role stick.AccessRole, rooms stick.Scope) string {
	e.t.Helper()
	_, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: name, Role: role, Rooms: rooms})
	if err != nil {
		e.t.Fatal(err)
	}
	return secret
}

// listenURL is the listening address the hub of withHub says it has.
const listenURL = "http://127.0.0.1:7420"

// withHub gives the page a hub that says of itself what a hub does:
// the public URL stored in the settings (else listenURL), fixed when
// fixed is not "", and instructions that quote the URL in markup.
func withHub(e **env, fixed string) func(*web.Config) {
	return func(c *web.Config) {
		c.Hub = func(ctx context.Context) (web.HubInfo, error) {
			st, err := (*e).svc.HubSettings(ctx)
			if err != nil {
				return web.HubInfo{}, err
			}
			info := web.HubInfo{PublicURL: listenURL, Stored: st.PublicURL, Listen: listenURL}
			switch {
			case fixed != "":
				info.PublicURL, info.Fixed = fixed, true
			case st.PublicURL != "":
				info.PublicURL = st.PublicURL
			}
			info.Instructions = "# Working on the hub at " + info.PublicURL + "\n\n<script>alert(1)</script> export STICK_HUB='" + info.PublicURL + "'\n"
			info.Install = "stick install --all --server '" + strings.ReplaceAll(info.PublicURL, "'", `'\''`) + "'"
			return info, nil
		}
	}
}
