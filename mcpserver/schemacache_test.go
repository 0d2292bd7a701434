package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/stickhq/stick/stick"
)

var updateSchemas = flag.Bool("update", false, "rewrite schemas.json from the tools' Go types (go test ./mcpserver -run TestSchemaCache -update)")

// toolsList returns the line s answers tools/list with, as a client reads
// it over stdio, and each tool's schemas in it, their bytes untouched.
func toolsList(t *testing.T, s *Server) ([]byte, map[string]cachedSchema) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Run(ctx, &StdioTransport{In: inR, Out: outW}) }()
	defer func() { cancel(); inW.Close(); <-served }()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(outR)
	for {
		line, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			ID     int `json:"id"`
			Result struct {
				Tools []struct {
					Name         string          `json:"name"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &res); err != nil || res.ID != 2 {
			continue
		}
		tools := map[string]cachedSchema{}
		for _, tool := range res.Result.Tools {
			tools[tool.Name] = cachedSchema{Input: tool.InputSchema, Output: tool.OutputSchema}
		}
		return line, tools
	}
}

// schemas.json holds exactly the schemas schemaFor builds from the tools'
// Go types with the default policy, so a server that takes them from it
// lists every tool byte for byte as one that builds them; a server with
// other defaults builds its own.
func TestSchemaCache(t *testing.T) {
	svc, err := stick.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	built, err := newServer(Config{Service: svc}, true)
	if err != nil {
		t.Fatal(err)
	}
	wantList, want := toolsList(t, built)
	if *updateSchemas {
		var b bytes.Buffer
		b.WriteString("{")
		names := slices.Sorted(maps.Keys(want))
		for i, name := range names {
			if i > 0 {
				b.WriteString(",")
			}
			entry, err := json.Marshal(name)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString("\n\t")
			b.Write(entry)
			b.WriteString(": {\"input\": ")
			b.Write(want[name].Input)
			b.WriteString(",\n\t\t\"output\": ")
			b.Write(want[name].Output)
			b.WriteString("}")
		}
		b.WriteString("\n}\n")
		if err := os.WriteFile("schemas.json", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	cached, err := New(Config{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	gotList, got := toolsList(t, cached)
	if len(got) != len(want) || len(schemaCache()) != len(want) {
		t.Fatalf("%d tools listed from schemas.json (%d in it), %d built: run go test ./mcpserver -run TestSchemaCache -update", len(got), len(schemaCache()), len(want))
	}
	for name, w := range want {
		if g := got[name]; !bytes.Equal(g.Input, w.Input) || !bytes.Equal(g.Output, w.Output) {
			t.Errorf("%s: schemas.json differs from the schemas its Go types give: run go test ./mcpserver -run TestSchemaCache -update\nwant input  %s\ngot input   %s\nwant output %s\ngot output  %s", name, w.Input, g.Input, w.Output, g.Output)
		}
		if _, ok := cachedSchemas(name, stick.DefaultPolicy); !ok {
			t.Errorf("%s is not in schemas.json", name)
		}
	}
	if !bytes.Equal(gotList, wantList) {
		t.Errorf("tools/list from schemas.json differs from the built one:\n%s\n%s", gotList, wantList)
	}
	other := stick.DefaultPolicy
	other.WaitMaxWait++
	if _, ok := cachedSchemas("wait_for_turn", other); ok {
		t.Error("schemas.json serves a server whose defaults are not the default policy")
	}
}
