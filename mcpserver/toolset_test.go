package mcpserver_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// The most characters a model reads about the tools (their names,
// descriptions and input schemas as tools/list serializes them) before it
// has done anything, for every tool and for the core set. The six tools
// of channels, handles, standby and removal, and append_note's and sync's
// recipients and channels, cost about 2,900 of the first (11,700 before
// them) and 50 of the second.
const (
	allToolsBudget  = 15000
	coreToolsBudget = 7100
)

var coreToolNames = []string{
	"append_note", "get_room_events", "get_room_state", "heartbeat", "join_path", "leave_path",
	"list_rooms", "pass_stick", "release_stick", "takeover_stick", "wait_for_turn",
}

// serve starts a server with the tool set and service options over a
// temporary database and returns a connected client.
func serve(t *testing.T, tools mcpserver.ToolSet, opts ...stick.Option) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := stick.New(st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Config{Service: svc, Harness: self(t), Version: "test", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	ct, sst := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolset-test", Version: "1.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func listTools(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// modelSize is what a model reads about tools: each one's name, description
// and input schema, JSON-serialized as the client receives them.
func modelSize(t *testing.T, tools []*mcp.Tool) (read, output int) {
	t.Helper()
	for _, tool := range tools {
		b, err := json.Marshal(struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema any    `json:"inputSchema"`
		}{tool.Name, tool.Description, tool.InputSchema})
		if err != nil {
			t.Fatal(err)
		}
		o, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		read, output = read+len(b), output+len(o)
	}
	return read, output
}

// The tool list stays within its budget, for every tool and for the core
// set, which has exactly the tools taking turns needs.
func TestToolListSize(t *testing.T) {
	for _, tc := range []struct {
		set    mcpserver.ToolSet
		names  []string
		budget int
	}{
		{mcpserver.AllTools, toolNames, allToolsBudget},
		{"", toolNames, allToolsBudget},
		{mcpserver.CoreTools, coreToolNames, coreToolsBudget},
	} {
		tools := listTools(t, serve(t, tc.set))
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		if !slices.Equal(names, tc.names) {
			t.Errorf("tool set %q has %v, want %v", tc.set, names, tc.names)
		}
		for _, tool := range tools {
			b, _ := json.Marshal(tool.InputSchema)
			for _, w := range toolName.FindAllString(tool.Description+string(b), -1) {
				if slices.Contains(toolNames, w) && !slices.Contains(names, w) {
					t.Errorf("tool set %q: %s names %s, which the server does not offer", tc.set, tool.Name, w)
				}
			}
		}
		read, output := modelSize(t, tools)
		t.Logf("tool set %q: %d tools, %d characters of names, descriptions and input schemas; output schemas %d", tc.set, len(tools), read, output)
		if read > tc.budget {
			t.Errorf("tool set %q: a model reads %d characters about the tools, more than the budget of %d", tc.set, read, tc.budget)
		}
	}
}

// A tool outside the server's set cannot be called; one inside works.
func TestCoreToolsOnly(t *testing.T) {
	cs := serve(t, mcpserver.CoreTools)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_room_doc", Arguments: map[string]any{"room_id": "room_0000000000000000"}}); err == nil {
		t.Error("read_room_doc answered on a server offering the core tools")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_rooms", Arguments: map[string]any{"context_path": t.TempDir()}})
	if err != nil || res.IsError {
		t.Fatalf("list_rooms on the core tools: %v %+v", err, res)
	}
}

func TestUnknownToolSet(t *testing.T) {
	if _, err := mcpserver.ParseToolSet("most"); err == nil || !strings.Contains(err.Error(), "all, core") {
		t.Fatalf("ParseToolSet(most): %v", err)
	}
	if set, err := mcpserver.ParseToolSet(""); err != nil || set != mcpserver.AllTools {
		t.Fatalf(`ParseToolSet(""): %v %v`, set, err)
	}
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcpserver.New(mcpserver.Config{Service: svc, Tools: "most"}); err == nil {
		t.Fatal("New accepted an unknown tool set")
	}
}

// inputProperty returns the input schema property path (names, "[]" for
// array items) of the tool.
func inputProperty(t *testing.T, tools []*mcp.Tool, tool string, path ...string) map[string]any {
	t.Helper()
	for _, tl := range tools {
		if tl.Name != tool {
			continue
		}
		b, _ := json.Marshal(tl.InputSchema)
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		for _, p := range path {
			if p == "[]" {
				s, _ = s["items"].(map[string]any)
			} else {
				props, _ := s["properties"].(map[string]any)
				s, _ = props[p].(map[string]any)
			}
			if s == nil {
				t.Fatalf("%s has no input property %v", tool, path)
			}
		}
		return s
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

// The input schemas state the ranges and values the server accepts, and the
// defaults it applies: those of the service it serves.
func TestSchemaRangesAndDefaults(t *testing.T) {
	lease := 90 * time.Minute
	tools := listTools(t, serve(t, mcpserver.AllTools, stick.WithDefaults(stick.Policy{OwnerLeaseTTL: lease})))
	for _, tc := range []struct {
		tool, prop string
		max        int64
		def        int64
	}{
		{"wait_for_turn", "max_wait_ms", stick.MaxWaitLimit.Milliseconds(), stick.DefaultPolicy.WaitMaxWait.Milliseconds()},
		{"sync", "wait_seconds", int64(stick.MaxWaitLimit / time.Second), 0},
		{"sync", "max_items", stick.MaxEventLimit, stick.DefaultSyncItems},
		{"get_room_events", "limit", stick.MaxEventLimit, stick.DefaultEventLimit},
		{"search_events", "limit", stick.MaxSearchLimit, stick.DefaultSearchLimit},
		{"set_room_policy", "owner_lease_ttl_ms", stick.MaxTTL.Milliseconds(), lease.Milliseconds()},
		{"set_room_policy", "claim_ttl_ms", stick.MaxTTL.Milliseconds(), stick.DefaultPolicy.ClaimTTL.Milliseconds()},
		{"set_room_policy", "heartbeat_interval_ms", stick.MaxTTL.Milliseconds(), stick.DefaultPolicy.HeartbeatInterval.Milliseconds()},
		{"set_room_policy", "presence_ttl_ms", stick.MaxTTL.Milliseconds(), stick.DefaultPolicy.PresenceTTL.Milliseconds()},
		{"set_room_policy", "wait_for_turn_max_wait_ms", stick.MaxWaitLimit.Milliseconds(), stick.DefaultPolicy.WaitMaxWait.Milliseconds()},
	} {
		p := inputProperty(t, tools, tc.tool, tc.prop)
		if p["minimum"] != float64(0) || p["maximum"] != float64(tc.max) {
			t.Errorf("%s.%s: minimum %v, maximum %v; want 0 and %d", tc.tool, tc.prop, p["minimum"], p["maximum"], tc.max)
		}
		if d, _ := p["description"].(string); !strings.Contains(d, "(default "+itoa(tc.def)+")") {
			t.Errorf("%s.%s: description %q does not give the default %d", tc.tool, tc.prop, d, tc.def)
		}
	}
	for _, tc := range []struct {
		tool     string
		path     []string
		accepted []string
		refused  []string
	}{
		{"append_note", []string{"message_type"}, []string{"note", "question", "answer", "decision", "x-review"}, []string{"", "notes", "Note", "x-", "custom"}},
		{"sync", []string{"outbox", "[]", "message_type"}, []string{"note", "decision", "x-plan"}, []string{"doc", "x-"}},
		{"search_events", []string{"type"}, []string{"note", "question", "answer", "decision", "x-review", "release", "pass", "close", "document"}, []string{"doc", "claim", "join", ""}},
	} {
		p := inputProperty(t, tools, tc.tool, tc.path...)
		pattern, _ := p["pattern"].(string)
		re, err := regexp.Compile(pattern)
		if pattern == "" || err != nil {
			t.Fatalf("%s.%v: pattern %q: %v", tc.tool, tc.path, pattern, err)
		}
		for _, v := range tc.accepted {
			if !re.MatchString(v) {
				t.Errorf("%s.%v: pattern %s refuses %q", tc.tool, tc.path, pattern, v)
			}
		}
		for _, v := range tc.refused {
			if re.MatchString(v) {
				t.Errorf("%s.%v: pattern %s accepts %q", tc.tool, tc.path, pattern, v)
			}
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// Every output schema types the error a failed call returns, once, without
// the descriptions no model reads.
func TestOutputSchemas(t *testing.T) {
	for _, tool := range listTools(t, serve(t, mcpserver.AllTools)) {
		b, _ := json.Marshal(tool.OutputSchema)
		// A description keyword has a string value; a property of that
		// name (a channel's description) has a schema.
		if strings.Contains(string(b), `"description":"`) {
			t.Errorf("%s: the output schema carries descriptions: %s", tool.Name, b)
		}
		var s struct {
			Properties map[string]struct {
				Type       any            `json:"type"`
				Properties map[string]any `json:"properties"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		e := s.Properties["error"]
		if e.Type != "object" || len(e.Properties) != 4 || e.Properties["code"] == nil || e.Properties["message"] == nil {
			t.Errorf("%s: the output schema does not type the error: %s", tool.Name, b)
		}
	}
}

// toolName matches the tool names in a text.
var toolName = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b|\bsync\b|\bheartbeat\b`)

// The instructions of every tool set name only tools the server offers, and
// say when to use them at all.
func TestInstructionsPerToolSet(t *testing.T) {
	all := toolNames
	for _, set := range mcpserver.ToolSets {
		cs := serve(t, set)
		in := cs.InitializeResult().Instructions
		if in != mcpserver.Instructions(set) {
			t.Errorf("tool set %s: the server sent other instructions than Instructions(%s)", set, set)
		}
		var offered []string
		for _, tool := range listTools(t, cs) {
			offered = append(offered, tool.Name)
		}
		for _, w := range toolName.FindAllString(in, -1) {
			if slices.Contains(all, w) && !slices.Contains(offered, w) {
				t.Errorf("tool set %s: the instructions name %s, which the server does not offer", set, w)
			}
		}
		for _, want := range []string{"join_path", "wait_for_turn", "your_turn", "heartbeat", "release_stick", "pass_stick", "handoff",
			"takeover_stick", "get_room_events", "get_room_state", "reclaim_token", "leave_path", "list_rooms", "append_note"} {
			if !strings.Contains(in, want) {
				t.Errorf("tool set %s: the instructions do not mention %s", set, want)
			}
		}
		for _, want := range []string{"only when the user asks", "other active members"} {
			if !strings.Contains(in, want) {
				t.Errorf("tool set %s: the instructions do not say when to use the tools (%q)", set, want)
			}
		}
	}
}
