package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var toolNames = []string{
	"append_note", "append_room_doc", "close_room", "get_my_handle", "get_room_events", "get_room_state", "heartbeat", "join_path", "leave_path",
	"list_channels", "list_rooms", "pass_stick", "read_history", "read_room_doc", "release_stick", "remove_member", "reorder_members",
	"room_doc_history", "search_events", "set_handle", "set_room_policy", "standby", "sync", "takeover_stick", "update_room_doc", "wait_for_turn",
}

// Every tool has a description, an input schema that is a valid JSON Schema
// of the portable subset (one type per property, no tuples, only the
// keywords every major model provider accepts, every property but the
// self-evident ones described, lines as two integers, roles as an enum) and
// an output schema.
func TestToolSchemas(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("schema-check", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 40 {
			t.Errorf("%s: description too thin: %q", tool.Name, tool.Description)
		}
		for _, which := range []struct {
			kind   string
			schema any
		}{{"input", tool.InputSchema}, {"output", tool.OutputSchema}} {
			raw, err := json.Marshal(which.schema)
			if err != nil || string(raw) == "null" {
				t.Fatalf("%s: no %s schema", tool.Name, which.kind)
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("%s %s schema: %v", tool.Name, which.kind, err)
			}
			if _, err := s.Resolve(nil); err != nil {
				t.Fatalf("%s %s schema is not a valid JSON Schema: %v", tool.Name, which.kind, err)
			}
			var generic map[string]any
			_ = json.Unmarshal(raw, &generic)
			if generic["type"] != "object" {
				t.Fatalf("%s %s schema must be an object: %s", tool.Name, which.kind, raw)
			}
			walk(t, tool.Name, "", generic, which.kind == "input")
		}
	}
	if !slices.Equal(names, toolNames) {
		t.Fatalf("tools %v, want exactly %v", names, toolNames)
	}
}

// portable are the keywords an input schema may use: the subset of JSON
// Schema that every major model provider accepts in a tool's parameters.
var portable = []string{"type", "description", "properties", "required", "items", "enum", "minimum", "maximum", "minItems", "maxItems", "pattern"}

// selfEvident are the input properties that may go without a description:
// their name, type and values say it all.
var selfEvident = []string{"room_id", "text", "metadata", "role", "note", "open_questions"}

func walk(t *testing.T, tool, name string, s map[string]any, input bool) {
	t.Helper()
	where := tool + "." + name
	if _, isList := s["type"].([]any); isList && input {
		t.Errorf("%s: type must be a single string, got %v", where, s["type"])
	}
	for k := range s {
		if input && !slices.Contains(portable, k) {
			t.Errorf("%s: keyword %s is outside the portable subset", where, k)
		}
	}
	for _, banned := range []string{"prefixItems", "anyOf", "oneOf", "allOf", "$ref"} {
		if _, ok := s[banned]; ok {
			t.Errorf("%s: uses %s", where, banned)
		}
	}
	if items, ok := s["items"].([]any); ok {
		t.Errorf("%s: tuple items %v", where, items)
	}
	if ap, ok := s["additionalProperties"]; ok && ap != false && ap != true {
		t.Errorf("%s: additionalProperties must be a boolean, got %v", where, ap)
	}
	if input && name != "" && !strings.HasSuffix(name, "[]") && s["description"] == nil && !slices.Contains(selfEvident, name) {
		t.Errorf("%s: no description", where)
	}
	switch name {
	case "lines":
		isArray := s["type"] == "array"
		if types, ok := s["type"].([]any); ok && !input {
			isArray = slices.Contains(types, any("array"))
		}
		if !isArray || s["minItems"] != float64(2) || s["maxItems"] != float64(2) {
			t.Errorf("%s: lines must be an array of exactly two integers: %v", where, s)
		}
		if it, _ := s["items"].(map[string]any); it["type"] != "integer" {
			t.Errorf("%s: lines items must be integers: %v", where, s)
		}
	case "role":
		if enum, _ := s["enum"].([]any); len(enum) != 5 {
			t.Errorf("%s: role must be an enum of the five roles: %v", where, s)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for k, v := range props {
			walk(t, tool, k, v.(map[string]any), input)
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		walk(t, tool, name+"[]", it, input)
	}
}

func TestInstructions(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("x", nil)
	in := cs.InitializeResult().Instructions
	for _, want := range []string{"join_path", "wait_for_turn", "your_turn", "heartbeat", "release_stick", "handoff", "takeover_stick", "get_room_events",
		"reclaim_token", "sync", "read_room_doc", "append_room_doc", "update_room_doc", "version_conflict", "search_events"} {
		if !strings.Contains(in, want) {
			t.Errorf("instructions do not mention %s", want)
		}
	}
	if cs.InitializeResult().ServerInfo.Name != "stick" {
		t.Fatalf("server info: %+v", cs.InitializeResult().ServerInfo)
	}
	_ = mcp.Implementation{}
}
