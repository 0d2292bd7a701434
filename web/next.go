package web

import (
	"net/http"
	"net/url"
	"strings"
)

// signinURL is where a reader who must sign in is sent: the sign-in
// form, told to come back to the page asked for (a GET's path and
// query; a form's POST is not asked again, and "/" is where sign-in
// lands anyway).
func signinURL(r *http.Request) string {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return "/signin"
	}
	next := r.URL.RequestURI()
	if next == "/" || localPath(next) == "/" {
		return "/signin"
	}
	return "/signin?next=" + url.QueryEscape(next)
}

// localPath returns next when it is a path on this hub, and "/"
// otherwise: a sign-in that sends its reader on must never send it to
// another site (an open redirect). A local path starts with a single
// "/", not "//" nor "/\" (which browsers read as another host), also
// once unescaped, and has no scheme, no host and no control character.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, `/\`) {
		return "/"
	}
	// Nor once unescaped: a server or proxy on the way may decode it.
	if p, err := url.PathUnescape(next); err != nil || strings.HasPrefix(p, "//") || strings.HasPrefix(p, `/\`) {
		return "/"
	}
	if strings.ContainsFunc(next, func(r rune) bool { return r < ' ' || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return next
}
