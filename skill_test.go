package skill_test

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	skill "github.com/stickhq/stick"
	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// maxBodyLines keeps SKILL.md a page: a model reads all of it at every use.
const maxBodyLines = 150

// page splits SKILL.md into its front matter fields and its markdown body.
func page(t *testing.T) (map[string]string, string) {
	t.Helper()
	md := strings.ReplaceAll(string(skill.Markdown), "\r\n", "\n")
	rest, ok := strings.CutPrefix(md, "---\n")
	if !ok {
		t.Fatal("SKILL.md must start with YAML front matter (a --- line)")
	}
	front, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatal("SKILL.md front matter has no closing --- line")
	}
	fields := map[string]string{}
	for _, line := range strings.Split(front, "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			t.Fatalf("front matter line %q is not a plain 'key: value' line", line)
		}
		fields[key] = strings.TrimSpace(value)
	}
	return fields, body
}

func TestFrontMatter(t *testing.T) {
	fields, body := page(t)
	if fields["name"] != "stick" {
		t.Errorf("name is %q, want stick", fields["name"])
	}
	desc := fields["description"]
	switch {
	case desc == "":
		t.Error("description is empty: it is how a harness decides to load the skill")
	case len(desc) > 1024:
		t.Errorf("description is %d bytes; skills allow at most 1024", len(desc))
	case strings.Contains(desc, ": ") || strings.Contains(desc, " #") || strings.ContainsAny(desc[:1], `"'&*!|>%@[]{}`+"`"):
		t.Errorf("description must stay a valid plain YAML scalar (no \": \", \" #\" or leading indicator): %q", desc)
	}
	for _, tool := range []string{"join_path", "wait_for_turn"} {
		if !strings.Contains(desc, tool) {
			t.Errorf("description should name %s, the trigger a model recognises", tool)
		}
	}
	if n := strings.Count(strings.TrimSpace(body), "\n") + 1; n > maxBodyLines {
		t.Errorf("SKILL.md body has %d lines; keep it to one page (at most %d)", n, maxBodyLines)
	}
}

// trigger is what every statement of when to use stick must say: the user
// asks for coordination, or the workspace's room already has other active
// members (list_rooms shows them); never merely that the tools exist.
var trigger = []string{"only when the user asks", "list_rooms", "other active members"}

// firstParagraph returns the body's first paragraph that is not a heading.
func firstParagraph(body string) string {
	for p := range strings.SplitSeq(strings.TrimSpace(body), "\n\n") {
		if !strings.HasPrefix(p, "#") {
			return strings.Join(strings.Fields(p), " ")
		}
	}
	return ""
}

// The skill, and the server's instructions for every tool set, apply when
// the user asks for coordination or the workspace's room has other active
// members: not in every session where the tools exist.
func TestTrigger(t *testing.T) {
	fields, body := page(t)
	texts := map[string]string{"the description": fields["description"], "the first paragraph": firstParagraph(body)}
	for _, set := range mcpserver.ToolSets {
		texts["the instructions of the "+string(set)+" tools"] = mcpserver.Instructions(set)
	}
	for where, text := range texts {
		for _, want := range trigger {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not say %q: %q", where, want, text)
			}
		}
		for _, banned := range []string{"whenever", "always"} {
			if strings.Contains(strings.ToLower(text), banned) {
				t.Errorf("%s says %q: the skill must not apply in every session: %q", where, banned, text)
			}
		}
	}
}

// world is a real MCP server over a temporary database, with one client.
type world struct {
	cs    *mcp.ClientSession
	tools []*mcp.Tool
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	self, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Config{Service: svc, Harness: self, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ct, sst := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "skill-test", Version: "1.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) == 0 {
		t.Fatal("the server lists no tools")
	}
	return &world{cs: cs, tools: res.Tools}
}

// call calls a tool and returns its structured content, failing on an error result.
func (w *world) call(t *testing.T, tool string, args any) map[string]any {
	t.Helper()
	res, err := w.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s failed: %s", tool, text.String())
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured content: %v", tool, err)
	}
	return out
}

// constants returns the values of the package stick's typed string
// constants, by type name (Code, WaitStatus, Role, RoomState, ...), read
// from its source so that a new constant is seen without changing this test,
// and of the files also (constants typed stick.Code count as Code).
func constants(t *testing.T, also ...string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("stick", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in stick/: %v", err)
	}
	files = append(files, also...)
	fset := token.NewFileSet()
	out := map[string][]string{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				typ, ok := vs.Type.(*ast.Ident)
				if sel, isSel := vs.Type.(*ast.SelectorExpr); isSel && sel.Sel.Name == "Code" {
					typ, ok = sel.Sel, true // stick.Code, in another package
				}
				if !ok {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						out[typ.Name] = append(out[typ.Name], s)
					}
				}
			}
		}
	}
	return out
}

func TestErrorCodesAndStatuses(t *testing.T) {
	_, body := page(t)
	// Every code an agent's MCP call may end with: stick's, and the
	// proxy's (a hub's own codes are retried by the proxy, or HTTP's).
	consts := constants(t, filepath.Join("proxy", "proxy.go"))
	codes := consts["Code"]
	if len(codes) < 10 || !slices.Contains(codes, string(stick.CodeStaleLease)) {
		t.Fatalf("read only %d error codes from stick/*.go: %v", len(codes), codes)
	}
	for _, code := range codes {
		// One table row per code, with what to do.
		if !regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(code) + "` \\| \\S").MatchString(body) {
			t.Errorf("error code %s has no row in the error table of SKILL.md", code)
		}
	}
	for _, status := range consts["WaitStatus"] {
		if !regexp.MustCompile("(?m)^\\s*\\| `" + regexp.QuoteMeta(status) + "` \\| \\S").MatchString(body) {
			t.Errorf("wait_for_turn status %s has no row in the status table of SKILL.md", status)
		}
	}
	for _, values := range [][]string{consts["TakeoverReason"], roles()} {
		for _, v := range values {
			if !strings.Contains(body, "`"+v+"`") {
				t.Errorf("SKILL.md does not mention `%s`", v)
			}
		}
	}
}

func roles() []string {
	var out []string
	for _, r := range stick.Roles {
		out = append(out, string(r))
	}
	return out
}

var (
	fenced = regexp.MustCompile("(?ms)^```.*?^```")
	inline = regexp.MustCompile("`([^`\n]+)`")
	name   = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$`)
)

// TestNames checks that every MCP tool appears in SKILL.md and that every
// name SKILL.md writes in backticks (a tool, an argument, a result field, a
// status, a code, a role...) is one the server or the package stick really has.
func TestNames(t *testing.T) {
	_, body := page(t)
	w := newWorld(t)
	known := map[string]bool{
		"stick": true, // the program and the room's token
		// Keys of an error's details, which no schema lists.
		"field": true, "current_owner": true, "current_turn_id": true, "room_state": true, "reserved_for": true,
	}
	for _, tool := range w.tools {
		known[tool.Name] = true
		if !strings.Contains(body, "`"+tool.Name+"`") {
			t.Errorf("tool %s is not mentioned in SKILL.md", tool.Name)
		}
		for _, schema := range []any{tool.InputSchema, tool.OutputSchema} {
			b, _ := json.Marshal(schema)
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			schemaNames(v, known)
		}
	}
	// The codes of stick, and those a hub and its proxy add.
	for _, values := range constants(t, filepath.Join("server", "errors.go"), filepath.Join("internal", "httpcode", "status.go"), filepath.Join("proxy", "proxy.go")) {
		for _, v := range values {
			known[v] = true
		}
	}
	prose := fenced.ReplaceAllString(body, "")
	var unknown []string
	for _, m := range inline.FindAllStringSubmatch(prose, -1) {
		if !name.MatchString(m[1]) {
			continue // not a name: a command line, a range, an env variable
		}
		for part := range strings.SplitSeq(m[1], ".") {
			if !known[part] && !slices.Contains(unknown, part) {
				unknown = append(unknown, part)
			}
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("SKILL.md names things no tool schema or stick constant has: %v", unknown)
	}
}

// schemaNames adds the property names and enum values of a JSON schema to known.
func schemaNames(v any, known map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			for k := range props {
				known[k] = true
			}
		}
		if enum, ok := x["enum"].([]any); ok {
			for _, e := range enum {
				if s, ok := e.(string); ok {
					known[s] = true
				}
			}
		}
		for _, sub := range x {
			schemaNames(sub, known)
		}
	case []any:
		for _, sub := range x {
			schemaNames(sub, known)
		}
	}
}

// TestReleaseExample sends the page's example handoff, ids replaced by real
// ones, to a real server's release_stick: it must be accepted as written.
func TestReleaseExample(t *testing.T) {
	_, body := page(t)
	block := regexp.MustCompile("(?ms)^```json\n(.*?)^```").FindStringSubmatch(body)
	if block == nil {
		t.Fatal("SKILL.md has no ```json example of a release_stick call")
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(block[1]), &args); err != nil {
		t.Fatalf("the example is not valid JSON: %v", err)
	}
	h, ok := args["handoff"].(map[string]any)
	if !ok {
		t.Fatal("the example has no handoff object")
	}
	for _, field := range []string{"status", "next_action", "artifacts", "open_questions", "do_not"} {
		if _, ok := h[field]; !ok {
			t.Errorf("the example handoff should show %s", field)
		}
	}

	w := newWorld(t)
	join := w.call(t, "join_path", map[string]any{"context_path": testkit.Repo(t)})
	turn := w.call(t, "wait_for_turn", map[string]any{"room_id": join["room_id"], "max_wait_ms": 0})
	if turn["status"] != string(stick.YourTurn) {
		t.Fatalf("wait_for_turn in a fresh room: %v", turn["status"])
	}
	// The example's ids must look like real ones.
	shape := regexp.MustCompile(`[0-9a-f]`)
	for _, key := range []string{"room_id", "lease_id"} {
		ex, _ := args[key].(string)
		if got := shape.ReplaceAllString(turn[key].(string), "x"); shape.ReplaceAllString(ex, "x") != got {
			t.Errorf("the example's %s %q does not look like a real one (%s)", key, ex, turn[key])
		}
		args[key] = turn[key]
	}
	if _, ok := args["expected_turn_id"].(float64); !ok {
		t.Error("the example's expected_turn_id must be a number")
	}
	args["expected_turn_id"] = turn["turn_id"]
	res := w.call(t, "release_stick", args)
	if res["room_id"] != join["room_id"] {
		t.Errorf("release_stick returned %v", res)
	}
}
