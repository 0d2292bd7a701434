package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/replay"
	"github.com/stickhq/stick/liveness"
	"github.com/stickhq/stick/stick"
)

var updateOpenAPI = flag.Bool("update", false, "rewrite openapi.json from the endpoints' Go types (go test ./server -run OpenAPI -update)")

// The embedded OpenAPI document is the one the endpoints' Go types make:
// a change of an endpoint, a field or an error code changes the document
// in the same commit.
func TestOpenAPIDocument(t *testing.T) {
	doc, err := buildOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if *updateOpenAPI {
		if err := os.WriteFile("openapi.json", doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(doc, openAPI) {
		t.Fatal("openapi.json is not the document the endpoints make; run: go test ./server -run OpenAPI -update")
	}
}

// buildOpenAPI makes the OpenAPI 3.1 document of the API from apiRoutes
// and the other paths of the hub.
func buildOpenAPI() ([]byte, error) {
	b := &docBuilder{schemas: map[string]any{}, paths: map[string]map[string]any{}}
	for _, rt := range apiRoutes() {
		if err := b.operation(rt); err != nil {
			return nil, err
		}
	}
	if err := b.extras(); err != nil {
		return nil, err
	}
	errSchema, err := schemaOf(reflect.TypeFor[errorBody](), false)
	if err != nil {
		return nil, err
	}
	b.schemas["Error"] = errSchema
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "stick hub",
			"version": "1",
			"description": "The JSON API of a stick hub ('stick serve'): one endpoint for every MCP tool of stick, for curl and scripts. " +
				"Who a request acts as comes from its bearer token and its client (the " + ClientHeader + " header, default curl), never from a field. " +
				"Every error is {\"error\": {code, message, hint, details}}. Writes take an Idempotency-Key header: a retry with the same key returns the first answer.",
		},
		"paths": b.paths,
		"components": map[string]any{
			"schemas": b.schemas,
			"responses": map[string]any{
				"Error": map[string]any{
					"description": "A coded error.",
					"content":     map[string]any{"application/json": map[string]any{"schema": ref("Error")}},
				},
			},
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer",
					"description": "A token made with 'stick token create'. A loopback hub with no token answers without one."},
			},
		},
		"security": []any{map[string]any{"bearer": []string{}}, map[string]any{}},
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type docBuilder struct {
	schemas map[string]any
	paths   map[string]map[string]any
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// operation adds the endpoint rt.
func (b *docBuilder) operation(rt route) error {
	id := rt.tool
	if id == "" {
		id = rt.op
	}
	name := camel(id)
	op := map[string]any{"operationId": id, "summary": rt.summary}
	if rt.tool != "" {
		op["description"] = "The MCP tool " + rt.tool + ", over HTTP."
	}
	var params []any
	if strings.Contains(rt.pattern, "{room_id}") {
		params = append(params, map[string]any{"name": "room_id", "in": "path", "required": true,
			"description": "The room's id (room_...).", "schema": map[string]any{"type": "string"}})
	}
	params = append(params, map[string]any{"name": ClientHeader, "in": "header",
		"description": "What the client is (default curl): with the token's name it makes the member the request acts as.",
		"schema":      map[string]any{"type": "string", "maxLength": maxClientLen}})
	params = append(params, map[string]any{"name": identity.SessionHeader, "in": "header",
		"description": "The harness session a proxy ('stick mcp --server') names, <pid>.<start ms>.<key>: with the token and the client it makes the member, the one the proxy's MCP calls act as.",
		"schema":      map[string]any{"type": "string", "maxLength": 128}})
	if rt.write() {
		params = append(params, map[string]any{"name": "Idempotency-Key", "in": "header",
			"description": "A key of the write: sent again with the same request, the first answer comes back and nothing is done twice.",
			"schema":      map[string]any{"type": "string", "maxLength": replay.MaxKeyLen}})
		if rt.in.NumField() > 0 {
			in, err := schemaOf(rt.in, true)
			if err != nil {
				return err
			}
			b.schemas[name+"Request"] = in
			op["requestBody"] = map[string]any{"required": len(in.Required) > 0,
				"content": map[string]any{"application/json": map[string]any{"schema": ref(name + "Request")}}}
		}
	} else {
		params = append(params, queryParams(rt.in)...)
	}
	op["parameters"] = params
	out, err := schemaOf(rt.out, false)
	if err != nil {
		return err
	}
	b.schemas[name+"Response"] = out
	content := map[string]any{"application/json": map[string]any{"schema": ref(name + "Response")}}
	if rt.text != "" {
		content[rt.text] = map[string]any{"schema": map[string]any{"type": "string"}}
	}
	responses := map[string]any{"200": map[string]any{"description": "Done.", "content": content}}
	for _, code := range slices.Concat(commonCodes, rt.codes) {
		responses[strconv.Itoa(statusOf(code))] = map[string]any{"$ref": "#/components/responses/Error"}
	}
	op["responses"] = responses
	path := b.paths[rt.pattern]
	if path == nil {
		path = map[string]any{}
		b.paths[rt.pattern] = path
	}
	path[strings.ToLower(rt.method)] = op
	return nil
}

// extras adds the paths that are not endpoints of the API.
func (b *docBuilder) extras() error {
	health, err := schemaOf(reflect.TypeFor[healthOut](), false)
	if err != nil {
		return err
	}
	b.schemas["HealthResponse"] = health
	errs := func(codes ...stick.Code) map[string]any {
		m := map[string]any{}
		for _, c := range codes {
			m[strconv.Itoa(statusOf(c))] = map[string]any{"$ref": "#/components/responses/Error"}
		}
		return m
	}
	get := func(id, summary, ctype string, schema any, security bool, codes ...stick.Code) map[string]any {
		rs := errs(codes...)
		rs["200"] = map[string]any{"description": "Done.", "content": map[string]any{ctype: map[string]any{"schema": schema}}}
		op := map[string]any{"operationId": id, "summary": summary, "responses": rs}
		if !security {
			op["security"] = []any{}
		}
		return map[string]any{"get": op}
	}
	b.paths["/healthz"] = get("healthz", "Whether the hub and its store answer, and the hub's version; needs no token",
		"application/json", ref("HealthResponse"), false, stick.CodeDBBusy, stick.CodeDBUnavailable, stick.CodeInternal, stick.CodeForbidden)
	b.paths["/metrics"] = get("metrics", "The hub's metrics, in the Prometheus text format", "text/plain",
		map[string]any{"type": "string"}, true, stick.CodeUnauthenticated, stick.CodeForbidden, CodeRateLimited)
	b.paths[apiPrefix+"/openapi.json"] = get("openapi", "This document", "application/json",
		map[string]any{"type": "object"}, true, stick.CodeUnauthenticated, stick.CodeForbidden, CodeRateLimited)
	b.paths[agentsPath] = get("agents_md", "The instructions a team gives its agents: the hub's URLs, the token, and a curl line for every step of a session; needs no token",
		"text/markdown", map[string]any{"type": "string"}, false, stick.CodeForbidden)
	msg, err := schemaOf(reflect.TypeFor[liveness.Message](), false)
	if err != nil {
		return err
	}
	b.schemas["LivenessMessage"] = msg
	// Each line of the stream is one LivenessMessage.
	stream := map[string]any{liveness.ContentType: map[string]any{"schema": ref("LivenessMessage")}}
	live := errs(stick.CodeUnauthenticated, stick.CodeForbidden, stick.CodeInvalidArgument, CodeRateLimited, CodeShuttingDown)
	live["200"] = map[string]any{"description": "The hub's side of the stream: one JSON message per line (ready, ping, shutdown), for as long as the stream lasts.",
		"content": stream}
	b.paths[liveness.Path] = map[string]any{"post": map[string]any{"operationId": "liveness",
		"summary":     "A proxy's liveness stream ('stick mcp --server'): the proxy sends one JSON message per line (hello with the leases its harness holds, keep, end, gone, ping) for as long as its harness lives; the member is alive while the stream is up, gone at once on gone, and gone after the room's proxy grace when it drops. Needs the X-Stick-Session and X-Stick-Client headers.",
		"requestBody": map[string]any{"required": true, "content": stream}, "responses": live}}
	b.paths[metadataPath] = get("oauth_protected_resource", "The hub's OAuth protected resource metadata (RFC 9728); needs no token",
		"application/json", map[string]any{"type": "object", "required": []string{"resource"},
			"properties": map[string]any{"resource": map[string]any{"type": "string"}}}, false)
	return nil
}

// queryParams describes the query parameters of type t, whose fields
// carry query and jsonschema (description) tags.
func queryParams(t reflect.Type) []any {
	var out []any
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("query")
		if name == "" {
			continue
		}
		typ := "string"
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int64:
			typ = "integer"
		case reflect.Bool:
			typ = "boolean"
		}
		out = append(out, map[string]any{"name": name, "in": "query", "description": f.Tag.Get("jsonschema"),
			"schema": map[string]any{"type": typ}})
	}
	return out
}

// schemaOf is the JSON Schema of type t: a request body (input) takes no
// null where a value is required, a response may have them.
func schemaOf(t reflect.Type, input bool) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[stick.Policy]():    policyJSONSchema(),
		reflect.TypeFor[json.RawMessage](): {},
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
	}})
	if err != nil {
		return nil, err
	}
	if input {
		noNull(s)
	}
	return s, nil
}

// policyJSONSchema is the schema of a policy as stick.Policy writes it:
// its durations in milliseconds.
func policyJSONSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, f := range []string{"owner_lease_ttl_ms", "claim_ttl_ms", "heartbeat_interval_ms", "presence_ttl_ms", "wait_for_turn_max_wait_ms", "proxy_grace_ms"} {
		s.Properties[f] = &jsonschema.Schema{Type: "integer"}
		s.Required = append(s.Required, f)
	}
	return s
}

// noNull drops "null" from the types of s and the schemas inside it.
func noNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		kept := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(kept) == 1 {
			s.Type, s.Types = kept[0], nil
		} else {
			s.Types = kept
		}
	}
	for _, p := range s.Properties {
		noNull(p)
	}
	noNull(s.Items)
}

// camel turns a snake_case id into CamelCase.
func camel(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(id, "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// Every path the hub serves is in the document, with each of its methods.
func TestOpenAPIPaths(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	for _, rt := range apiRoutes() {
		if _, ok := doc.Paths[rt.pattern][strings.ToLower(rt.method)]; !ok {
			t.Errorf("%s %s is not in openapi.json", rt.method, rt.pattern)
		}
	}
	for _, p := range []string{"/healthz", "/metrics", apiPrefix + "/openapi.json", metadataPath, agentsPath} {
		if _, ok := doc.Paths[p][strings.ToLower(http.MethodGet)]; !ok {
			t.Errorf("GET %s is not in openapi.json", p)
		}
	}
	if _, ok := doc.Paths[liveness.Path]["post"]; !ok {
		t.Errorf("POST %s is not in openapi.json", liveness.Path)
	}
}
