package stick_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// A public URL is an http or https URL with a host and nothing a reader
// of the hub's instructions should not see or could not use; it is kept
// without its trailing "/".
func TestCheckPublicURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://stick.example.com":              "https://stick.example.com",
		"https://stick.example.com/":             "https://stick.example.com",
		"  http://127.0.0.1:7420 ":               "http://127.0.0.1:7420",
		"http://[::1]:7420/teams/stick/":         "http://[::1]:7420/teams/stick",
		"https://example.org/o'brien/a b":        "https://example.org/o%27brien/a%20b",
		"HTTPS://Stick.Example.com:8443/x":       "https://Stick.Example.com:8443/x",
		"http://stick.internal:80/path/with%2Fs": "http://stick.internal:80/path/with%2Fs",
	} {
		if got, err := stick.CheckPublicURL(in); err != nil || got != want {
			t.Errorf("CheckPublicURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"":                               "not an http",
		"stick.example.com":              "not an http",
		"ftp://stick.example.com":        "not an http",
		"javascript:alert(1)":            "not an http",
		"http:stick":                     "no host",
		"http://":                        "no host",
		"http://:7420":                   "no host",
		"https://ana:secret@example.com": "user name or password",
		"https://example.com/?x=1":       "query",
		"https://example.com/?":          "query",
		"https://example.com/#top":       "fragment",
		"https://example.com/#":          "fragment",
		"http://exa mple.com":            "not an http",
		"http://example.com/\x1b[31m":    "not an http",
		"https://example.com/" + strings.Repeat("a", stick.MaxPublicURLLen): "bytes",
	} {
		_, err := stick.CheckPublicURL(in)
		e := stick.AsError(err)
		if e == nil || e.Code != stick.CodeInvalidArgument || e.Details["field"] != "public_url" || !strings.Contains(e.Message, why) {
			t.Errorf("CheckPublicURL(%q): %v, want invalid_argument saying %q", in, err, why)
		}
	}
}

// SetPublicURL keeps the URL checked and trimmed, an empty one forgets
// it, and a bad one changes nothing.
func TestSetPublicURL(t *testing.T) {
	e := newEnv(t)
	if got, err := e.svc.HubSettings(e.ctx); err != nil || got.PublicURL != "" {
		t.Fatalf("a new hub's settings: %+v %v", got, err)
	}
	got, err := e.svc.SetPublicURL(e.ctx, "https://stick.example.com/")
	if err != nil || got.PublicURL != "https://stick.example.com" {
		t.Fatalf("set: %+v %v", got, err)
	}
	_, err = e.svc.SetPublicURL(e.ctx, "ftp://nope")
	wantCode(t, err, stick.CodeInvalidArgument)
	if got, _ := e.svc.HubSettings(e.ctx); got.PublicURL != "https://stick.example.com" {
		t.Fatalf("a refused URL changed the setting: %+v", got)
	}
	if got, err := e.svc.SetPublicURL(e.ctx, "  "); err != nil || got.PublicURL != "" {
		t.Fatalf("forget: %+v %v", got, err)
	}
	if got, _ := e.svc.HubSettings(e.ctx); got.PublicURL != "" {
		t.Fatalf("a forgotten URL is still set: %+v", got)
	}
}
