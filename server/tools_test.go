package server

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// testService returns a Service over a new database, closed when the
// test ends.
func testService(t *testing.T) *stick.Service {
	t.Helper()
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// The JSON API has one endpoint for every tool 'stick mcp' offers, and
// no endpoint names a tool that does not exist.
func TestOneEndpointPerTool(t *testing.T) {
	srv, err := mcpserver.New(mcpserver.Config{Service: testService(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, stt := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tools, endpoints []string
	for _, tool := range res.Tools {
		tools = append(tools, tool.Name)
	}
	for _, rt := range apiRoutes() {
		if rt.tool != "" {
			endpoints = append(endpoints, rt.tool)
		}
	}
	slices.Sort(tools)
	slices.Sort(endpoints)
	if !slices.Equal(tools, endpoints) {
		t.Fatalf("the tools %v\nand the endpoints' tools %v differ", tools, endpoints)
	}
}
