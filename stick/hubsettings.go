package stick

import (
	"context"
	"net/url"
	"strings"
)

// HubSettings are the settings of a hub that its operators change over
// the hub itself (on its page), kept in its store so that they outlive a
// restart. What nobody set is "". A hub's own flags, given when it
// starts, win over them (see the hub's Config).
type HubSettings struct {
	// PublicURL is the URL clients reach the hub by, as an operator set
	// it: an http or https URL with no query, fragment or user
	// (CheckPublicURL), without a "/" at its end.
	PublicURL string `json:"public_url,omitempty"`
}

// MaxPublicURLLen bounds a hub's public URL.
const MaxPublicURLLen = 2048

// CheckPublicURL returns raw as a hub's public URL: an http or https URL
// with a host, and no query, fragment or user name or password (the URL is
// printed in the instructions the hub gives out to anyone), without the
// "/" at its end. Surrounding space is ignored.
//
// Errors: invalid_argument (public_url).
func CheckPublicURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if err := checkLen("public_url", raw, MaxPublicURLLen); err != nil {
		return "", err
	}
	bad := func(why string) error {
		return invalidArg("public_url", "the public URL %s %s", Quote(raw), why).
			WithHint("give the URL clients reach the hub by, such as https://stick.example.com")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Scheme != "http" && u.Scheme != "https":
		return "", bad("is not an http or https URL")
	case u.Host == "" || u.Hostname() == "":
		return "", bad("has no host")
	case u.User != nil:
		return "", bad("holds a user name or password, which the hub's instructions would show to anyone")
	case u.RawQuery != "" || u.ForceQuery:
		return "", bad("has a query (?...)")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "", bad("has a fragment (#...)")
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// HubSettings returns the hub's settings as its store keeps them.
//
// Errors: only the store's.
func (s *Service) HubSettings(ctx context.Context) (HubSettings, error) {
	if err := s.allow(ActionHubSettings); err != nil {
		return HubSettings{}, err
	}
	var out HubSettings
	err := s.store.View(ctx, func(tx Tx) error {
		var err error
		out, err = tx.HubSettings()
		return err
	})
	return out, err
}

// SetPublicURL stores the hub's public URL (CheckPublicURL), or with ""
// forgets it, and returns the settings as stored. The public URL is the
// whole hub's, so over the hub only an operator whose token reaches every
// room may set it; a hub takes it up without a restart (unless a flag
// of its own names its public URL, which wins).
//
// Errors: invalid_argument (public_url), forbidden (a token limited to
// some rooms).
func (s *Service) SetPublicURL(ctx context.Context, raw string) (HubSettings, error) {
	if err := s.allow(ActionSetPublicURL); err != nil {
		return HubSettings{}, err
	}
	if p := s.principal; p != nil && !p.Rooms.All() {
		return HubSettings{}, Errorf(CodeForbidden, "the token %s reaches %s; the public URL is the whole hub's, and only a token that reaches every room may set it", Quote(p.Name), p.Rooms).
			WithHint("ask an operator whose token reaches every room")
	}
	public := ""
	if strings.TrimSpace(raw) != "" {
		var err error
		if public, err = CheckPublicURL(raw); err != nil {
			return HubSettings{}, err
		}
	}
	var out HubSettings
	err := s.store.Update(ctx, func(tx Tx) error {
		cur, err := tx.HubSettings()
		if err != nil {
			return err
		}
		cur.PublicURL = public
		if err := tx.SaveHubSettings(cur); err != nil {
			return err
		}
		out = cur
		return nil
	})
	return out, err
}
