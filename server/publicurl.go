package server

import (
	"context"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/web"
)

// The public URL of a hub is, in this order: the one it was started with
// (Config.PublicURL, from --public-url or $STICK_PUBLIC_URL), else the
// one an operator set on the hub's page and its store keeps
// (stick.HubSettings), else the URL of its listening address. The hub
// takes up a URL set on its page at once: its page tells it
// (web.Config.Hub), and /agents.md, the resource metadata and the origin
// it answers browsers from follow. The origin of the listening address
// stays allowed whatever the public URL, so a change made on a page read
// at that address does not lock its reader out.

// publicSource says where a hub's public URL comes from.
type publicSource string

const (
	fromConfig   publicSource = "config"
	fromSettings publicSource = "settings"
	fromListener publicSource = "listener"
)

// public is a hub's public URL and what is made of it.
type public struct {
	url    string
	source publicSource
	// origin and host are the URL's, as browsers send them in Origin and
	// Host.
	origin, host string
	// agents is /agents.md.
	agents []byte
	// stored is the URL the store keeps, "" for none (or when the Config
	// names one and the store was not read).
	stored string
}

// pub returns the public URL as it stands.
func (s *Server) pub() *public { return s.public.Load() }

// setPublicURL works out the URL of the listening address (the last
// resort, with the host's name for an address that is every address),
// checks Config.PublicURL, and takes up the public URL.
func (s *Server) setPublicURL(ctx context.Context) error {
	raw := s.ListenURL()
	s.listenOrigins = []string{originOf(&url.URL{Scheme: strings.SplitN(raw, ":", 2)[0], Host: s.ln.Addr().String()})}
	if tcp, ok := s.ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		// Listening on every address: the host's name is the one
		// clients most likely reach it by.
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "localhost"
		}
		raw = strings.Replace(raw, tcp.String(), net.JoinHostPort(host, strconv.Itoa(tcp.Port)), 1)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	s.listenURL = strings.TrimSuffix(u.String(), "/")
	s.listenOrigins = append(s.listenOrigins, originOf(u))
	if raw := s.cfg.PublicURL; raw != "" {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return stick.Errorf(stick.CodeInvalidArgument, "the public URL %s is not an http or https URL", stick.Quote(raw)).With("field", "public-url").
				WithHint("give the URL clients reach the hub by, such as https://stick.example.com")
		}
	}
	_, err = s.refreshPublic(ctx)
	return err
}

// refreshPublic reads the public URL afresh (the store's, unless the
// Config names one) and takes it up.
func (s *Server) refreshPublic(ctx context.Context) (*public, error) {
	s.publicMu.Lock()
	defer s.publicMu.Unlock()
	raw, source, stored := s.cfg.PublicURL, fromConfig, ""
	if raw == "" {
		st, err := s.cfg.Service.HubSettings(ctx)
		if err != nil {
			return s.pub(), err
		}
		stored = st.PublicURL
		raw, source = stored, fromSettings
	}
	u, err := url.Parse(raw)
	if raw == "" || err != nil {
		if err != nil {
			s.log.Warn("the stored public URL is not a URL; using the listening address", "public_url", stick.Quote(raw))
		}
		source = fromListener
		u, _ = url.Parse(s.listenURL)
	}
	p := &public{url: strings.TrimSuffix(u.String(), "/"), source: source, origin: originOf(u), host: u.Hostname(), stored: stored}
	if cur := s.pub(); cur != nil && cur.url == p.url {
		p.agents = cur.agents
	} else if p.agents, err = agentsMarkdown(p.url); err != nil {
		return s.pub(), err
	}
	s.public.Store(p)
	return p, nil
}

// hubInfo is what the hub's page shows of it: its public URL read afresh,
// where it comes from, and /agents.md.
func (s *Server) hubInfo(ctx context.Context) (web.HubInfo, error) {
	p, err := s.refreshPublic(ctx)
	if p == nil {
		return web.HubInfo{}, err
	}
	return web.HubInfo{PublicURL: p.url, Fixed: p.source == fromConfig, Stored: p.stored, Listen: s.listenURL,
		Instructions: string(p.agents), Install: installLine(p.url)}, err
}

// ownOrigin reports whether origin is the hub's own: its public URL's, or
// its listening address's.
func (s *Server) ownOrigin(origin string) bool {
	if strings.EqualFold(origin, s.pub().origin) {
		return true
	}
	for _, o := range s.listenOrigins {
		if strings.EqualFold(origin, o) {
			return true
		}
	}
	return false
}
