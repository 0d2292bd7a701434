package server

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/web"
)

// guard refuses, with forbidden (403), what a browser may send on behalf of
// a page the hub never served:
//
//   - on a loopback hub, a Host that is not a loopback name nor the public
//     URL's host: a page of another site whose name was made to point at
//     127.0.0.1 (DNS rebinding) would otherwise reach the hub as its own
//     origin, with no token needed;
//   - an Origin other than the hub's own (its public URL's scheme, host and
//     port, or its listening address's), on every method: net/http's CrossOriginProtection lets every
//     GET through, and the hub's reads are private;
//   - without an Origin, a Sec-Fetch-Site of cross-site or same-site,
//     but for a link to the page followed from another site
//     (pageNavigation).
//
// The resource metadata is exempt from the Origin checks: it is public,
// and browsers' MCP clients read it from their own origin.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.checkHost(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		if r.URL.Path != metadataPath {
			if err := s.checkOrigin(r); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) checkHost(r *http.Request) error {
	if !s.loopback {
		return nil
	}
	host := hostName(r.Host)
	if loopbackName(host) || strings.EqualFold(host, s.pub().host) {
		return nil
	}
	return stick.Errorf(stick.CodeForbidden, "this hub listens on a loopback address and answers only to a loopback host name, not %s", stick.Quote(host)).
		WithHint("reach it as 127.0.0.1, [::1] or localhost, or start it with --public-url naming the host it is reached by")
}

func (s *Server) checkOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	own := s.pub().origin
	if origin != "" {
		if s.ownOrigin(origin) {
			return nil
		}
		return stick.Errorf(stick.CodeForbidden, "a cross-origin request from %s: this hub answers only pages of its own origin, %s", stick.Quote(origin), own).
			WithHint("call the hub from a program (curl, an agent), not from a web page of another site")
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		if pageNavigation(r) {
			return nil
		}
		return stick.Errorf(stick.CodeForbidden, "a cross-site request: this hub answers only pages of its own origin, %s", own).
			WithHint("call the hub from a program (curl, an agent), not from a web page of another site")
	}
	return nil
}

// pageNavigation reports whether r is a reader following a link to the
// page from another site: a top-level navigation (Sec-Fetch-Mode navigate,
// Sec-Fetch-Dest document) that reads (GET or HEAD) one of the page's
// paths (web.Paths). The page's GETs write nothing, and what it shows
// goes to the reader's own window, never to the site that linked to it;
// a POST, and any request to the API or /mcp, stays refused.
func pageNavigation(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if r.Header.Get("Sec-Fetch-Mode") != "navigate" || r.Header.Get("Sec-Fetch-Dest") != "document" {
		return false
	}
	return pagePath(r.URL.Path)
}

// pagePath reports whether path is one the hub hands to its page
// (web.Paths: "/{$}" is the root alone, a pattern ending in "/" a tree).
func pagePath(path string) bool {
	for _, p := range web.Paths {
		if _, rest, ok := strings.Cut(p, " "); ok {
			p = rest
		}
		switch {
		case p == "/{$}":
			if path == "/" {
				return true
			}
		case strings.HasSuffix(p, "/"):
			if strings.HasPrefix(path, p) {
				return true
			}
		case path == p:
			return true
		}
	}
	return false
}

// hostName is the host of a Host header, without its port or brackets.
func hostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// loopbackName reports whether host names this host: localhost (or a
// name under .localhost, which resolvers keep on the host), or a loopback
// IP address.
func loopbackName(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originOf returns the origin of a URL: scheme://host[:port], the port
// left out when it is the scheme's default, as browsers send Origin.
func originOf(u *url.URL) string {
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if port == "" || u.Scheme == "http" && port == "80" || u.Scheme == "https" && port == "443" {
		return strings.ToLower(u.Scheme + "://" + host)
	}
	return strings.ToLower(u.Scheme + "://" + host + ":" + port)
}
