package mcpserver

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"sync"

	"github.com/stickhq/stick/stick"
)

// schemasJSON holds every tool's input and output schema for the default
// policy, as schemaFor builds them: reflecting them from Go types and
// handing them to the SDK as values is most of a server's start-up, and
// the SDK takes them as JSON as well. TestSchemaCache checks it against
// schemaFor, and rewrites it with -update.
//
//go:embed schemas.json
var schemasJSON []byte

// cachedSchema is one tool's entry in schemas.json.
type cachedSchema struct {
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

// schemaCache is schemas.json read, each schema compact, as the SDK sends
// it; nil if it cannot be read, and every schema is then built.
var schemaCache = sync.OnceValue(func() map[string]cachedSchema {
	var m map[string]cachedSchema
	if json.Unmarshal(schemasJSON, &m) != nil {
		return nil
	}
	for name, c := range m {
		var in, out bytes.Buffer
		if json.Compact(&in, c.Input) != nil || json.Compact(&out, c.Output) != nil {
			return nil
		}
		m[name] = cachedSchema{Input: in.Bytes(), Output: out.Bytes()}
	}
	return m
})

// cachedSchemas returns tool's schemas from schemas.json, when the server
// runs with the default policy they were made for (the policy's values
// appear in the descriptions of the inputs).
func cachedSchemas(tool string, defaults stick.Policy) (cachedSchema, bool) {
	if defaults != stick.DefaultPolicy {
		return cachedSchema{}, false
	}
	c, ok := schemaCache()[tool]
	return c, ok && len(c.Input) > 0 && len(c.Output) > 0
}
