package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzToolArguments sends arbitrary arguments to every tool through a real
// server session: the server never fails at the protocol level and never
// panics; every rejection is a coded error result, and a rejected
// invalid_argument or invalid_handoff names the field.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []struct {
		tool byte
		args string
	}{
		{0, `{"context_path": "/"}`},
		{1, `{"context_path": ".", "force_new": true}`},
		{2, `{"room_id": "room_x", "max_wait_ms": 0}`},
		{3, `{"room_id": "r", "lease_id": "l", "expected_turn_id": 1}`},
		{4, `{"room_id": "r", "lease_id": "l", "expected_turn_id": 1, "handoff": {"status": "s", "next_action": "n", "artifacts": [{"path": "a", "lines": [1, 2], "role": "edit"}]}}`},
		{5, `{"room_id": "r", "lease_id": "l", "expected_turn_id": 1, "to_agent_id": "x", "handoff": {}}`},
		{6, `{"room_id": "r", "expected_turn_id": -1, "reason": ""}`},
		{11, `{"room_id": "r", "claim_ttl_ms": 1e300}`},
		{12, `{"room_id": "r", "agent_ids": [null]}`},
		{13, `{"room_id": "r", "text": "\u0000"}`},
		{7, `[]`},
		{8, `{"ROOM_ID": 1}`},
	} {
		f.Add(s.tool, []byte(s.args))
	}
	w := newWorldTB(f, nil, self(f))
	cs := w.connectTB(f, "fuzz")
	f.Fuzz(func(t *testing.T, tool byte, args []byte) {
		if !json.Valid(args) {
			return
		}
		name := toolNames[int(tool)%len(toolNames)]
		if name == "wait_for_turn" {
			// Never block the fuzzer: one attempt only, whatever it asked for.
			var m map[string]any
			if json.Unmarshal(args, &m) != nil || m == nil {
				return
			}
			m["max_wait_ms"] = 0
			args, _ = json.Marshal(m)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s %s: protocol error %v", name, args, err)
		}
		if !res.IsError {
			return
		}
		sc, _ := res.StructuredContent.(map[string]any)
		e, _ := sc["error"].(map[string]any)
		code, _ := e["code"].(string)
		if code == "" || e["message"] == "" {
			t.Fatalf("%s %s: error without code or message: %v", name, args, res.StructuredContent)
		}
		if code == "invalid_argument" || code == "invalid_handoff" {
			if d, _ := e["details"].(map[string]any); d["field"] == nil || d["field"] == "" {
				t.Fatalf("%s %s: %s without a field: %v", name, args, code, e)
			}
		}
	})
}
