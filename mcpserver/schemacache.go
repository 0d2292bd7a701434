package mcpserver

import (
	"encoding/json"

	"github.com/stickhq/stick/stick"
)

// cachedSchema is one tool's input and output schema, JSON as the server
// sends it.
type cachedSchema struct {
	Input  json.RawMessage
	Output json.RawMessage
}

// cachedSchemas returns tool's schemas from schemas_gen.go, when the
// server runs with the default policy they were made for (the policy's
// values appear in the descriptions of the inputs). Reflecting the
// schemas from Go types and handing them to the SDK as values is most of a
// server's start-up, and the SDK takes them as JSON as well.
// TestSchemaCache checks schemas_gen.go against schemaFor, and rewrites it
// with -update.
func cachedSchemas(tool string, defaults stick.Policy) (cachedSchema, bool) {
	if defaults != stick.DefaultPolicy {
		return cachedSchema{}, false
	}
	c, ok := toolSchemas[tool]
	if !ok {
		return cachedSchema{}, false
	}
	return cachedSchema{Input: json.RawMessage(c[0]), Output: json.RawMessage(c[1])}, true
}
