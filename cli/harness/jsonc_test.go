package harness

import (
	"strings"
	"testing"
)

const stickCmd = "/opt/bin/stick"

// entry is the server entry as stick writes it at the given indentation.
func entry(indent, unit, nl string) string {
	return strings.Join([]string{
		"{",
		indent + unit + `"type": "local",`,
		indent + unit + `"command": ["/opt/bin/stick", "mcp"],`,
		indent + unit + `"enabled": true`,
		indent + "}",
	}, nl)
}

// Adding the server writes exactly the expected bytes, keeps every other
// byte, and removing it again gives back the original file.
func TestOpenCodeAddRemoveRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{
			name: "pretty JSON without mcp",
			src:  "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"theme\": \"opencode\"\n}\n",
			want: "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"theme\": \"opencode\",\n" +
				"  \"mcp\": {\n    \"stick\": " + entry("    ", "  ", "\n") + "\n  }\n}\n",
		},
		{
			name: "JSONC with comments, trailing commas, tabs and another server",
			src: "// OpenCode, configured by hand\n{\n" +
				"  \"$schema\": \"https://opencode.ai/config.json\", // the schema\n" +
				"\t\"theme\":   \"tokyonight\",   /* tabs, odd spacing, a \"quote\" */\n" +
				"  \"mcp\": {\n" +
				"    // issue tracker\n" +
				"    \"jira\": {\"type\": \"remote\", \"url\": \"https://jira.example.com/mcp?a=1&b=2//x\", \"enabled\": true,},\n" +
				"  },\n" +
				"  \"model\": \"anthropic/claude-sonnet-4\",\n" +
				"}\n",
			want: "// OpenCode, configured by hand\n{\n" +
				"  \"$schema\": \"https://opencode.ai/config.json\", // the schema\n" +
				"\t\"theme\":   \"tokyonight\",   /* tabs, odd spacing, a \"quote\" */\n" +
				"  \"mcp\": {\n" +
				"    // issue tracker\n" +
				"    \"jira\": {\"type\": \"remote\", \"url\": \"https://jira.example.com/mcp?a=1&b=2//x\", \"enabled\": true,},\n" +
				"    \"stick\": " + entry("    ", "  ", "\n") + ",\n" +
				"  },\n" +
				"  \"model\": \"anthropic/claude-sonnet-4\",\n" +
				"}\n",
		},
		{
			name: "a comment after the last member",
			src:  "{\n    \"theme\": \"x\" // keep me\n}",
			want: "{\n    \"theme\": \"x\", // keep me\n    \"mcp\": {\n        \"stick\": " + entry("        ", "    ", "\n") + "\n    }\n}",
		},
		{
			name: "minified",
			src:  `{"theme":"x"}`,
			want: `{"theme":"x", "mcp": {"stick": {"type": "local", "command": ["/opt/bin/stick", "mcp"], "enabled": true}}}`,
		},
		{
			name: "empty object",
			src:  "{}\n",
			want: "{\n  \"mcp\": {\n    \"stick\": " + entry("    ", "  ", "\n") + "\n  }\n}\n",
		},
		{
			name: "tabs",
			src:  "{\n\t\"theme\": \"x\"\n}\n",
			want: "{\n\t\"theme\": \"x\",\n\t\"mcp\": {\n\t\t\"stick\": " + entry("\t\t", "\t", "\n") + "\n\t}\n}\n",
		},
		{
			name: "CRLF line ends",
			src:  "{\r\n  \"theme\": \"x\"\r\n}\r\n",
			want: "{\r\n  \"theme\": \"x\",\r\n  \"mcp\": {\r\n    \"stick\": " + entry("    ", "  ", "\r\n") + "\r\n  }\r\n}\r\n",
		},
		{
			name: "single-line mcp object in a pretty file",
			src:  "{\n  \"mcp\": {\"jira\": {\"type\": \"remote\", \"url\": \"u\"}},\n  \"theme\": \"x\"\n}\n",
			want: "{\n  \"mcp\": {\"jira\": {\"type\": \"remote\", \"url\": \"u\"}, \"stick\": {\"type\": \"local\", \"command\": [\"/opt/bin/stick\", \"mcp\"], \"enabled\": true}},\n  \"theme\": \"x\"\n}\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, previous, err := openCodeAdd([]byte(tc.src), stickCmd)
			if err != nil || previous != nil || string(out) != tc.want {
				t.Fatalf("add: %v %q\n got: %q\nwant: %q", err, previous, out, tc.want)
			}
			again, _, err := openCodeAdd(out, stickCmd)
			if err != nil || again != nil {
				t.Fatalf("second add must change nothing: %v %q", err, again)
			}
			back, previous, err := openCodeRemove(out)
			if err != nil || string(back) != tc.src || strings.Join(previous, " ") != stickCmd+" mcp" {
				t.Fatalf("remove: %v %q\n got: %q\nwant: %q", err, previous, back, tc.src)
			}
			if none, _, err := openCodeRemove(back); err != nil || none != nil {
				t.Fatalf("second remove must find nothing: %v %q", err, none)
			}
		})
	}
}

// A registration with another command is updated in place: only the fields
// stick owns change, other keys of the entry stay.
func TestOpenCodeAddUpdatesOnlyOwnFields(t *testing.T) {
	src := "{\n  \"mcp\": {\n    \"stick\": {\n      \"type\": \"local\",\n      \"command\": [\"/old/stick\", \"mcp\"],\n" +
		"      \"environment\": {\"A\": \"1\"}\n    }\n  }\n}\n"
	want := "{\n  \"mcp\": {\n    \"stick\": {\n      \"type\": \"local\",\n      \"command\": [\"/opt/bin/stick\", \"mcp\"],\n" +
		"      \"environment\": {\"A\": \"1\"},\n      \"enabled\": true\n    }\n  }\n}\n"
	out, previous, err := openCodeAdd([]byte(src), stickCmd)
	if err != nil || string(out) != want || strings.Join(previous, " ") != "/old/stick mcp" {
		t.Fatalf("%v %q\n got: %q\nwant: %q", err, previous, out, want)
	}
	// An entry that is not an object is replaced as a whole.
	out, previous, err = openCodeAdd([]byte(`{"mcp": {"stick": "junk"}}`), stickCmd)
	if err != nil || previous == nil || string(out) != `{"mcp": {"stick": {"type": "local", "command": ["/opt/bin/stick", "mcp"], "enabled": true}}}` {
		t.Fatalf("%v %q %q", err, previous, out)
	}
}

// An "mcp" object that only held stick goes with it: empty, it means the same
// as none.
func TestOpenCodeRemoveDropsEmptyMCP(t *testing.T) {
	out, _, err := openCodeAdd([]byte("{\n  \"mcp\": {}\n}\n"), stickCmd)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := openCodeRemove(out)
	if err != nil || string(back) != "{}\n" {
		t.Fatalf("%v %q", err, back)
	}
	out, _, err = openCodeAdd([]byte(`{"mcp":{}}`), stickCmd)
	if err != nil || string(out) != `{"mcp":{"stick": {"type": "local", "command": ["/opt/bin/stick", "mcp"], "enabled": true}}}` {
		t.Fatalf("%v %q", err, out)
	}
	if back, _, err = openCodeRemove(out); err != nil || string(back) != `{}` {
		t.Fatalf("%v %q", err, back)
	}
	back, _, err = openCodeRemove([]byte("{\n  \"mcp\": {\n    \"stick\": {},\n    \"jira\": {}\n  }\n}\n"))
	if err != nil || string(back) != "{\n  \"mcp\": {\n    \"jira\": {}\n  }\n}\n" {
		t.Fatalf("%v %q", err, back)
	}
	back, _, err = openCodeRemove([]byte(`{"mcp": {"stick": {}, "jira": {}}, "a": 1}`))
	if err != nil || string(back) != `{"mcp": {"jira": {}}, "a": 1}` {
		t.Fatalf("%v %q", err, back)
	}
}

func TestEditErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`[1, 2]`, "the top level is not an object"},
		{`{"mcp": "none"}`, `"mcp" is not an object`},
		{"{\n  \"a\": ?\n}", "not valid JSON at line 2, column 8"},
		{"{\"a\": 1} /* open", "unterminated /* comment at line 1, column 10"},
		{"", "not valid JSON"},
	} {
		if _, _, err := openCodeAdd([]byte(tc.src), stickCmd); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

// Blanking keeps every offset and every string, and removes only comments and
// trailing commas.
func TestBlank(t *testing.T) {
	src := "\xef\xbb\xbf{\"a\": \"// not /* a comment\", // one\n /* two\n lines */ \"b\": [1, 2,],}"
	clean, trailing, err := blank([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "   {\"a\": \"// not /* a comment\",       \n       \n          \"b\": [1, 2 ] }"
	if string(clean) != want || len(trailing) != 2 {
		t.Fatalf("got %q %v\nwant %q", clean, trailing, want)
	}
	raw, found, err := getJSON([]byte(src), "b")
	if err != nil || !found || string(raw) != "[1, 2 ]" {
		t.Fatalf("%v %v %q", err, found, raw)
	}
}
