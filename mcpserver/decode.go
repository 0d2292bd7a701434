package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/stickhq/stick/stick"
)

// decode reads tool arguments into v as strictly as the input schema says:
// the arguments must be an object; every key must be a field of v spelt
// exactly (encoding/json alone would accept any letter case); an integer
// may be written as a number with a zero fraction (30000.0), as JSON Schema
// allows; a string must be valid UTF-8 (encoding/json would replace what
// is not with U+FFFD). Every failure is invalid_argument naming the field.
func decode(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if field, bad := invalidUTF8Field(raw); bad {
		return stick.Errorf(stick.CodeInvalidArgument, "%s is not valid UTF-8", field).With("field", field).
			WithHint("send text as UTF-8; a \\u escape of a UTF-16 surrogate must come in a pair")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return stick.Errorf(stick.CodeInvalidArgument, "arguments are not valid JSON: %v", err).With("field", "arguments")
	}
	if _, ok := generic.(map[string]any); !ok {
		return stick.Errorf(stick.CodeInvalidArgument, "arguments must be a JSON object").With("field", "arguments").
			WithHint("pass the tool's fields as an object, see its input schema")
	}
	normal, err := check(reflect.TypeOf(v).Elem(), generic, "")
	if err != nil {
		return err
	}
	b, err := json.Marshal(normal)
	if err != nil {
		return stick.Errorf(stick.CodeInvalidArgument, "cannot read arguments: %v", err).With("field", "arguments")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return typeError(err)
	}
	return nil
}

// check walks val against the Go type t: it rejects keys that are not
// fields of t (exact spelling) and rewrites integral numbers for integer
// fields, returning the normalised value.
func check(t reflect.Type, val any, path string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch x := val.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return val, nil // a free-form object, or a type error decoding reports
		}
		fields := jsonFields(t)
		for k, sub := range x {
			ft, ok := fields[k]
			if !ok {
				if k == "" {
					k = `""`
				}
				return nil, unknownField(join(path, k))
			}
			n, err := check(ft, sub, join(path, k))
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, sub := range x {
				n, err := check(t.Elem(), sub, fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return nil, err
				}
				x[i] = n
			}
		}
	case json.Number:
		if isInt(t.Kind()) && strings.ContainsAny(string(x), ".eE") {
			f, err := x.Float64()
			if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return json.Number(strconv.FormatInt(int64(f), 10)), nil
			}
			return nil, stick.Errorf(stick.CodeInvalidArgument, "%s must be an integer, got %s", path, stick.Quote(string(x))).With("field", path)
		}
	}
	return val, nil
}

// jsonFields maps the JSON names of t's fields (embedded structs included)
// to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := make(map[string]reflect.Type)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func isInt(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func unknownField(field string) error {
	if len(field) > stick.MaxQuoted {
		field = stick.Quote(field)
	}
	e := stick.Errorf(stick.CodeInvalidArgument, "unknown field %s", stick.Quote(field)).With("field", field).
		WithHint("remove %s; field names are case-sensitive, see the tool's input schema", field)
	if field == "agent_id" {
		e.WithHint("do not send agent_id: the server derives it from this connection (join_path returns it)")
	}
	return e
}

func typeError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return stick.Errorf(stick.CodeInvalidArgument, "cannot read arguments: %v", err).With("field", "arguments")
	}
	field := te.Field
	if field == "" {
		field = "arguments"
	}
	t := te.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return stick.Errorf(stick.CodeInvalidArgument, "%s must be %s, got %s", field, jsonKind(t.Kind()), te.Value).
		With("field", field).WithHint("fix %s and call again; see the tool's input schema", field)
}

func jsonKind(k reflect.Kind) string {
	switch {
	case isInt(k):
		return "an integer"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "true or false"
	case k == reflect.Slice || k == reflect.Array:
		return "an array"
	}
	return "an object"
}
