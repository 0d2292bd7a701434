package web

// HubInfo is what a hub says of itself to its page.
type HubInfo struct {
	// PublicURL is the URL clients reach the hub by, as it stands.
	PublicURL string
	// Fixed is set when the hub was started with its public URL
	// (--public-url or $STICK_PUBLIC_URL), which wins over the one its
	// operators set on the page.
	Fixed bool
	// Stored is the public URL its operators set (stick.HubSettings), ""
	// for none.
	Stored string
	// Listen is the URL of the hub's listening address: its public URL
	// when neither the start nor an operator gave one.
	Listen string
	// Instructions is the markdown the hub serves at /agents.md: how its
	// agents reach it and take part.
	Instructions string
	// Install is the command line that registers the proxy for the hub
	// with every harness of a machine ('stick install --all --server'),
	// its URL quoted for the shell; the page adds where the token is read
	// from.
	Install string
}
