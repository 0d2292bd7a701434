package web

import (
	"net/http"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// tokenFile is where the connect page suggests keeping a hub's token.
const tokenFile = "~/.config/stick/token"

// connectBody is the body of the connect page.
type connectBody struct {
	// Known is set when the hub told its page about itself (Config.Hub).
	Known bool
	// PublicURL, Install and Instructions are the hub's URL, the line
	// that registers its proxy with every harness, and /agents.md.
	PublicURL, Install, Instructions string
	// Open is set on a hub that needs no token.
	Open bool
	// TokenFile is where the install line reads the token from.
	TokenFile string
	// Operator is set when the reader may make tokens on the page.
	Operator bool
}

// serveConnect shows how to connect an agent to the hub: its public URL,
// the instructions the hub gives its agents (the text of /agents.md,
// which the hub makes: Config.Hub), the 'stick install --server' line,
// and how to get a token; each with a button that copies it.
func (h *Handler) serveConnect(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	body := connectBody{TokenFile: tokenFile, Operator: v.principal.Role == stick.AccessOperator}
	if body.Open, err = h.open(r.Context()); err != nil {
		h.failErr(w, r, err)
		return
	}
	if h.cfg.Hub != nil {
		info, err := h.cfg.Hub(r.Context())
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		body.Known = true
		body.PublicURL, body.Instructions = render.Line(info.PublicURL), render.Text(info.Instructions)
		body.Install = render.Line(info.Install)
		if !body.Open {
			body.Install += " --token-file " + tokenFile
		}
	}
	h.show(w, r, http.StatusOK, "connect", v, "Connect an agent", body)
}
