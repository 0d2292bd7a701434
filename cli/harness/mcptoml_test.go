package harness

import (
	"slices"
	"testing"
)

// The "stick" server of Grok Build's config.toml is read in the forms
// 'grok mcp add' and people write it; one it cannot read counts as another
// command (to be replaced), and none as not registered.
func TestTOMLServer(t *testing.T) {
	for _, c := range []struct {
		src   string
		want  []string
		found bool
	}{
		{"", nil, false},
		{"[mcp_servers.other]\ncommand = \"x\"\n", nil, false},
		{"model = \"grok\"\n\n[mcp_servers.stick]\ncommand = \"/bin/stick\"\nargs = [\"mcp\"]\n\n[mcp_servers.x]\ncommand = \"y\"\n", []string{"/bin/stick", "mcp"}, true},
		{"[ mcp_servers . \"stick\" ] # ours\ncommand = '/my dir/stick' # c\nargs = [\n  \"mcp\", # first\n  \"--tools=core\",\n]\n", []string{"/my dir/stick", "mcp", "--tools=core"}, true},
		{"[mcp_servers.stick]\ncommand = \"/bin/stick\"\n", []string{"/bin/stick"}, true},
		{"[mcp_servers.stick]\ncommand = \"a\\\"b\"\nargs = [\"m]cp\"]\n", []string{`a"b`, "m]cp"}, true},
		{"[mcp_servers]\nstick = { command = \"/bin/stick\", args = [\"mcp\"] }\n", []string{}, true},
		{"mcp_servers.stick.command = \"/bin/stick\"\n", []string{"/bin/stick"}, true},
		{"[mcp_servers.stick]\nurl = \"https://example.com/mcp\"\n", []string{}, true},
		{"[mcp_servers.stick]\ncommand = \"/bin/stick\"\nargs = [1]\n", []string{}, true},
	} {
		got, found, err := tomlServer(c.src)
		if err != nil || found != c.found || !slices.Equal(got, c.want) || (c.want != nil) != (got != nil) {
			t.Errorf("tomlServer(%q) = %q, %v, %v; want %q, %v", c.src, got, found, err, c.want, c.found)
		}
	}
}
