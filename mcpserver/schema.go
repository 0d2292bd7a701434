package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stickhq/stick/stick"
)

// descriptions describe input properties whose Go types carry no jsonschema
// tag (the domain types), by property name.
var descriptions = map[string]string{
	"status":                    "Handoff: what you did, what you learned, what is unfinished. Required, non-empty.",
	"next_action":               "Handoff: the one concrete thing the next holder should do first. Required, non-empty.",
	"artifacts":                 "Handoff: files (and line ranges) the next holder should load first instead of exploring.",
	"path":                      "Absolute or workspace-relative file path.",
	"lines":                     "Optional inclusive line range [start, end], 1-based, start <= end.",
	"role":                      "What the next holder should do with the file: examine, review, edit, context or output.",
	"note":                      "Optional remark about this file.",
	"open_questions":            "Handoff: questions you could not settle.",
	"do_not":                    "Handoff: things the next holder must not do or touch.",
	"owner_lease_ttl_ms":        "How long a holder may stay silent before takeover opens, in milliseconds.",
	"claim_ttl_ms":              "How long a reserved recipient has to claim the stick, in milliseconds.",
	"heartbeat_interval_ms":     "How often the holder should call heartbeat, in milliseconds.",
	"presence_ttl_ms":           "How long after its last call a member still counts as active, in milliseconds.",
	"wait_for_turn_max_wait_ms": "How long one wait_for_turn call blocks by default, in milliseconds.",
}

var policySchema = &jsonschema.Schema{
	Type:        "object",
	Description: "A room's effective timeouts.",
	Properties: map[string]*jsonschema.Schema{
		"owner_lease_ttl_ms":        {Type: "integer"},
		"claim_ttl_ms":              {Type: "integer"},
		"heartbeat_interval_ms":     {Type: "integer"},
		"presence_ttl_ms":           {Type: "integer"},
		"wait_for_turn_max_wait_ms": {Type: "integer"},
	},
}

func roleSchema() *jsonschema.Schema {
	enum := make([]any, len(stick.Roles))
	for i, r := range stick.Roles {
		enum[i] = string(r)
	}
	return &jsonschema.Schema{Type: "string", Enum: enum}
}

// schemaFor builds the JSON Schema of T. An input schema is in the form
// every major model provider accepts: one type per property (no ["null", …]
// unions), no tuple forms, "lines" as an array of exactly two integers,
// roles as an enum, additionalProperties false on objects, and a
// description on every property. An output schema keeps nullable types
// (clients validate results against it; providers never see it) and
// requires nothing, so an error result validates too.
func schemaFor[T any](input bool) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[stick.Policy]():    policySchema,
		reflect.TypeFor[json.RawMessage](): {Type: "object", Description: "Structured details of the event."},
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
		reflect.TypeFor[stick.Role]():      roleSchema(),
	}})
	if err != nil {
		return nil, err
	}
	if err := tidy(s, "", input); err != nil {
		return nil, err
	}
	return s, nil
}

func tidy(s *jsonschema.Schema, name string, input bool) error {
	if len(s.Types) > 0 && input {
		// Providers want one type per input property; outputs may be nullable.
		var kept []string
		for _, t := range s.Types {
			if t != "null" {
				kept = append(kept, t)
			}
		}
		if len(kept) != 1 {
			return fmt.Errorf("property %q has types %v", name, s.Types)
		}
		s.Type, s.Types = kept[0], nil
	}
	if s.Description == "" && name != "" && input {
		s.Description = descriptions[name]
	}
	if input && name != "" && s.Description == "" {
		return fmt.Errorf("input property %q has no description", name)
	}
	if name == "lines" && (s.Type == "array" || slices.Contains(s.Types, "array")) {
		two := 2
		s.MinItems, s.MaxItems = &two, &two
	}
	if s.Type == "object" && s.AdditionalProperties == nil && len(s.Properties) > 0 {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}} // marshals as false
	}
	if !input {
		s.Required = nil
	}
	if s.Items != nil {
		if err := tidy(s.Items, "", input); err != nil {
			return err
		}
	}
	if len(s.PrefixItems) > 0 {
		return fmt.Errorf("property %q is a tuple", name)
	}
	for prop, sub := range s.Properties {
		if err := tidy(sub, prop, input); err != nil {
			return err
		}
	}
	return nil
}
