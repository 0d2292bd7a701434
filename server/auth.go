package server

import (
	"context"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stickhq/stick/stick"
)

// Authenticator checks a bearer token's secret and says whose it is. The
// hub's stick.Service is one: it keeps only the tokens' hashes.
type Authenticator interface {
	// Authenticate returns the principal the secret stands for. It fails
	// with unauthenticated for a secret that is unknown, revoked or
	// expired, and with the store's errors (db_busy, ...).
	Authenticate(ctx context.Context, secret string) (stick.Principal, error)
}

// metadataPath is where the hub's OAuth protected resource metadata is
// (RFC 9728): MCP clients look there before they send a token, and must
// find JSON.
const metadataPath = "/.well-known/oauth-protected-resource"

// metadataURL is the full URL of the resource metadata, for
// WWW-Authenticate.
func (s *Server) metadataURL() string { return s.pub().url + metadataPath }

// metadata serves the resource metadata: the hub's URL, and that a token
// goes in the Authorization header. It names no authorization server: a
// token is made on the hub's host ('stick token create').
func (s *Server) metadata() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               s.pub().url,
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "stick hub",
		}).ServeHTTP(w, r)
	})
}

// open reports whether the hub answers requests without a credential: only
// a loopback hub with no credential that could authenticate.
func (s *Server) open(ctx context.Context) (bool, error) {
	if !s.loopback {
		return false, nil
	}
	switch {
	case s.cfg.Auth == nil:
		return true, nil
	case s.cfg.AnyCredential == nil:
		return false, nil
	}
	some, err := s.cfg.AnyCredential(ctx)
	return !some, err
}

// authenticate finds the principal of the request: the one its bearer
// token stands for, or on an open hub (see open) with no token the local
// principal (Config.Local). It refuses with unauthenticated (401) a
// request with no token, or a token that is not a bearer token or that
// Authenticate does not know, and with rate_limited (429) a client
// address that failed too often (see limiter). The token's name is kept
// for the request's log line; its secret is in no log or error.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.principal(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		infoOf(r).token = p.Name
		next.ServeHTTP(w, r.WithContext(stick.WithPrincipal(r.Context(), p)))
	})
}

func (s *Server) principal(r *http.Request) (stick.Principal, error) {
	header := r.Header.Get("Authorization")
	if header == "" {
		open, err := s.open(r.Context())
		if err != nil {
			return stick.Principal{}, err
		}
		if open {
			return s.cfg.Local, nil
		}
		return stick.Principal{}, stick.Errorf(stick.CodeUnauthenticated, "this hub needs a token: the request has no Authorization header").
			WithHint("send 'Authorization: Bearer <token>'; an operator makes one with 'stick token create NAME' on the hub's host")
	}
	addr := clientAddr(r)
	if wait := s.limits.wait(addr); wait > 0 {
		secs := int(wait.Seconds()) + 1
		return stick.Principal{}, stick.Errorf(CodeRateLimited, "too many failed authentications from %s", addr).
			WithHint("wait %d s, then send a valid token", secs).With("retry_after_s", secs)
	}
	scheme, secret, ok := strings.Cut(header, " ")
	secret = strings.TrimSpace(secret)
	if !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" {
		s.limits.fail(addr)
		return stick.Principal{}, stick.Errorf(stick.CodeUnauthenticated, "the Authorization header is not a bearer token").
			WithHint("send 'Authorization: Bearer <token>'")
	}
	return s.check(r, secret)
}

// check returns the principal of a token's secret, counting a failure
// against the request's address: the bearer token of a request, or the
// token a person signs in to the page with.
func (s *Server) check(r *http.Request, secret string) (stick.Principal, error) {
	addr := clientAddr(r)
	if wait := s.limits.wait(addr); wait > 0 {
		secs := int(wait.Seconds()) + 1
		return stick.Principal{}, stick.Errorf(CodeRateLimited, "too many failed authentications from %s", addr).
			WithHint("wait %d s, then send a valid token", secs).With("retry_after_s", secs)
	}
	if s.cfg.Auth == nil {
		s.limits.fail(addr)
		return stick.Principal{}, stick.Errorf(stick.CodeUnauthenticated, "this hub has no tokens, so none can be valid").
			WithHint("leave the Authorization header out on this loopback hub, or make a token with 'stick token create NAME'")
	}
	p, err := s.cfg.Auth.Authenticate(r.Context(), secret)
	if stick.ErrorCode(err) == stick.CodeUnauthenticated {
		s.limits.fail(addr)
	}
	return p, err
}

// clientAddr is the address a request came from, as the rate limit counts
// it: the IP address, an IPv6 one by its /64 network, which one host
// usually has whole. Behind a reverse proxy every client is the proxy.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.To4() != nil {
		return host
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}
