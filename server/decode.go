package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/stickhq/stick/stick"
)

// maxBody bounds a request body: a whole document (stick.MaxDocLen) with
// room for JSON's escapes, and an outbox of notes.
const maxBody = 8 << 20

// readBody reads the request body whole, refusing one over maxBody with
// request_too_large.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, stick.Errorf(CodeTooLarge, "the request body is over %d bytes", maxBody).With("max_bytes", maxBody).
			WithHint("send a smaller body: a document of at most %d bytes, fewer notes at once", stick.MaxDocLen)
	}
	if err != nil {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "cannot read the request body: %v", err).With("field", "body")
	}
	return b, nil
}

// decodeBody reads a JSON request body into v strictly: the body must be
// one JSON object of valid UTF-8 (an empty body is the empty object);
// every key must be a field of v, spelt exactly as the API names it;
// every value of its field's type. Each failure is invalid_argument
// naming the field (details["field"]). agent_id in particular is refused
// with a hint: who a request acts as comes from its credential.
func decodeBody(body []byte, v any) error {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if !utf8.Valid(body) {
		return stick.Errorf(stick.CodeInvalidArgument, "the request body is not valid UTF-8").With("field", "body").
			WithHint("send JSON encoded as UTF-8")
	}
	if body[0] != '{' {
		return stick.Errorf(stick.CodeInvalidArgument, "the request body must be a JSON object").With("field", "body").
			WithHint("send the fields as an object, see /api/v1/openapi.json")
	}
	if err := checkKeys(body, reflect.TypeOf(v).Elem()); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return stick.Errorf(stick.CodeInvalidArgument, "the request body has more after its JSON object").With("field", "body").
			WithHint("send one JSON object")
	}
	return nil
}

// checkKeys refuses a key of the body's top-level object that is not a
// field of t spelt exactly: encoding/json would take any letter case.
// Nested objects are left to DisallowUnknownFields.
func checkKeys(body []byte, t reflect.Type) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return jsonError(err)
	}
	fields := jsonNames(t)
	for k := range top {
		if !fields[k] {
			return unknownField(k)
		}
	}
	return nil
}

// jsonNames returns the JSON names of struct type t's fields, those of
// embedded structs included.
func jsonNames(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous && name == "":
			for k := range jsonNames(f.Type) {
				out[k] = true
			}
		case f.IsExported() && name != "-":
			if name == "" {
				name = f.Name
			}
			out[name] = true
		}
	}
	return out
}

// unknownField is the refusal of a field the endpoint does not take.
func unknownField(field string) error {
	e := stick.Errorf(stick.CodeInvalidArgument, "unknown field %s", stick.Quote(field)).With("field", field).
		WithHint("remove it; field names are case-sensitive, see /api/v1/openapi.json")
	switch field {
	case "agent_id", "agent_id_override", "display_name":
		e.WithHint("do not send %s: the hub names you from your token and your client (the X-Stick-Client header)", field)
	case "room_id":
		e.WithHint("the room is the one in the path; remove room_id from the body")
	}
	return e
}

// jsonError turns a decoding error into invalid_argument naming the field.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return stick.Errorf(stick.CodeInvalidArgument, "the request body must be a JSON object").With("field", "body")
		}
		return stick.Errorf(stick.CodeInvalidArgument, "%s must be %s, got %s", field, kindName(te.Type), te.Value).
			With("field", field).WithHint("fix %s, see /api/v1/openapi.json", field)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if f, err := strconv.Unquote(name); err == nil {
			return unknownField(f)
		}
	}
	return stick.Errorf(stick.CodeInvalidArgument, "the request body is not valid JSON: %v", err).With("field", "body")
}

// kindName says what a value of type t is in JSON's words.
func kindName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// decodeQuery reads the query parameters of a request into v, a pointer to
// a struct whose fields carry `query:"name"` tags (strings, integers and
// booleans). A parameter v has no field for, one given twice, or one that
// is not of its field's type is invalid_argument naming it.
func decodeQuery(q url.Values, v any) error {
	rv := reflect.ValueOf(v).Elem()
	t := rv.Type()
	fields := map[string]int{}
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("query"); name != "" {
			fields[name] = i
		}
	}
	for name, vals := range q {
		i, ok := fields[name]
		if !ok {
			return stick.Errorf(stick.CodeInvalidArgument, "unknown query parameter %s", stick.Quote(name)).With("field", name).
				WithHint("remove it, see /api/v1/openapi.json for the parameters of this endpoint")
		}
		if len(vals) != 1 {
			return stick.Errorf(stick.CodeInvalidArgument, "query parameter %s is given %d times", name, len(vals)).With("field", name).
				WithHint("give it once")
		}
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(vals[0])
		case reflect.Int, reflect.Int64:
			n, err := strconv.ParseInt(vals[0], 10, 64)
			if err != nil {
				return stick.Errorf(stick.CodeInvalidArgument, "query parameter %s must be an integer, got %s", name, stick.Quote(vals[0])).With("field", name)
			}
			f.SetInt(n)
		case reflect.Bool:
			b, err := strconv.ParseBool(vals[0])
			if err != nil {
				return stick.Errorf(stick.CodeInvalidArgument, "query parameter %s must be true or false, got %s", name, stick.Quote(vals[0])).With("field", name)
			}
			f.SetBool(b)
		}
	}
	return nil
}
