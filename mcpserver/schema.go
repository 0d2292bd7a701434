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
// tag (the handoff's fields), by property name.
var descriptions = map[string]string{
	"status":      "What you did, learned and left unfinished.",
	"next_action": "The one next step for the next holder.",
	"artifacts":   "Files to read first instead of exploring.",
	"path":        "Absolute or workspace-relative.",
	"lines":       "[start, end], 1-based.",
	"do_not":      "What the next holder must not do.",
}

// selfEvident are the input properties whose name, type and values say all
// a model needs: they go without a description, which every other input
// property has.
var selfEvident = map[string]bool{"room_id": true, "text": true, "metadata": true, "role": true, "note": true, "open_questions": true}

// refiner is an input type that completes its own schema: the bounds and
// values its fields accept and the defaults they fall back to, taken from
// package stick and from the service's default policy so the schema says
// what the server does.
type refiner interface {
	refine(s *jsonschema.Schema, defaults stick.Policy)
}

// between bounds the integer property prop of s to [lo, hi] and describes
// it with format and args.
func between(s *jsonschema.Schema, prop string, lo, hi int64, format string, args ...any) {
	p := s.Properties[prop]
	l, h := float64(lo), float64(hi)
	p.Minimum, p.Maximum = &l, &h
	p.Description = fmt.Sprintf(format, args...)
}

var policySchema = &jsonschema.Schema{
	Type: "object",
	Properties: map[string]*jsonschema.Schema{
		"owner_lease_ttl_ms":        {Type: "integer"},
		"claim_ttl_ms":              {Type: "integer"},
		"heartbeat_interval_ms":     {Type: "integer"},
		"presence_ttl_ms":           {Type: "integer"},
		"wait_for_turn_max_wait_ms": {Type: "integer"},
		"proxy_grace_ms":            {Type: "integer"},
	},
}

func roleSchema() *jsonschema.Schema {
	enum := make([]any, len(stick.Roles))
	for i, r := range stick.Roles {
		enum[i] = string(r)
	}
	return &jsonschema.Schema{Type: "string", Enum: enum}
}

// schemaFor builds the JSON Schema of T. An input schema is what a model
// reads before every call, in the form every major model provider accepts:
// one type per property (no ["null", …] unions), no tuple forms, "lines" as
// an array of exactly two integers, roles as an enum, documented ranges as
// minimum and maximum, note types as a pattern, and a short description on
// every property. It carries no additionalProperties: the server refuses an
// unknown field itself, naming it, and the OpenAPI subset some providers
// take has no such keyword. An output schema keeps nullable types and
// additionalProperties false (clients validate results against it; providers
// never see it), no descriptions, and requires nothing, so an error result
// validates too.
func schemaFor[T any](input bool, defaults stick.Policy) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[stick.Policy]():    policySchema,
		reflect.TypeFor[json.RawMessage](): {Type: "object"},
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
		reflect.TypeFor[stick.Role]():      roleSchema(),
	}})
	if err != nil {
		return nil, err
	}
	if r, ok := any(*new(T)).(refiner); ok && input {
		r.refine(s, defaults)
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
	switch {
	case !input:
		s.Description = ""
	case s.Description == "" && name != "":
		s.Description = descriptions[name]
	}
	if input && name != "" && !selfEvident[name] && s.Description == "" {
		return fmt.Errorf("input property %q has no description", name)
	}
	if name == "lines" && (s.Type == "array" || slices.Contains(s.Types, "array")) {
		two := 2
		s.MinItems, s.MaxItems = &two, &two
	}
	switch {
	case input && len(s.Properties) > 0:
		s.AdditionalProperties = nil
	case s.Type == "object" && s.AdditionalProperties == nil && len(s.Properties) > 0:
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
