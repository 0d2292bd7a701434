package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// doc is a JSON or JSONC document (comments and trailing commas allowed)
// read for editing: every edit splices the original bytes, so whatever lies
// outside the edited member (other keys, comments, formatting) is kept.
type doc struct {
	src []byte
	// clean is src with comments and trailing commas replaced by spaces: the
	// same offsets, and plain JSON that encoding/json reads.
	clean []byte
	// trailing holds the offsets of the trailing commas.
	trailing map[int]bool
	// root is the offset of the top-level object's '{'.
	root int
}

// member is one member of an object, as offsets into the document.
type member struct {
	key                        string
	keyStart, valStart, valEnd int // the key's opening quote; the value's first byte and the byte after it
}

// object is an object of the document: the offsets of its braces and its
// members in order.
type object struct {
	open, close int
	members     []member
}

// find returns the index of the last member named key (the one that counts
// when a key repeats), or -1.
func (o object) find(key string) int {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return i
		}
	}
	return -1
}

var utf8BOM = []byte("\xef\xbb\xbf")

func parseDoc(src []byte) (*doc, error) {
	clean, trailing, err := blank(src)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(clean, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(src, max(int(se.Offset)-1, 0)) // Offset is just after the bad byte
			return nil, fmt.Errorf("not valid JSON at line %d, column %d: %v", line, col, se)
		}
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	root := skipSpace(clean, 0)
	if root >= len(clean) || clean[root] != '{' {
		return nil, errors.New("the top level is not an object")
	}
	return &doc{src: src, clean: clean, trailing: trailing, root: root}, nil
}

// blank replaces comments (// and /* */) and trailing commas with spaces,
// leaving strings and line breaks alone, and returns the offsets of the
// trailing commas.
func blank(src []byte) ([]byte, map[int]bool, error) {
	out := bytes.Clone(src)
	if bytes.HasPrefix(out, utf8BOM) {
		copy(out, "   ")
	}
	for i := 0; i < len(out); {
		switch {
		case out[i] == '"':
			i = skipString(out, i)
		case bytes.HasPrefix(out[i:], []byte("//")):
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case bytes.HasPrefix(out[i:], []byte("/*")):
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				line, col := position(src, i)
				return nil, nil, fmt.Errorf("unterminated /* comment at line %d, column %d", line, col)
			}
			for stop := i + 2 + end + 2; i < stop; i++ {
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
			}
		default:
			i++
		}
	}
	trailing := map[int]bool{}
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '"':
			i = skipString(out, i) - 1
		case ',':
			if j := skipSpace(out, i+1); j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
				trailing[i] = true
			}
		}
	}
	return out, trailing, nil
}

// skipString returns the offset after the string that starts at b[i] == '"'.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// position turns an offset into a 1-based line and column.
func position(src []byte, off int) (line, col int) {
	off = min(off, len(src))
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	return line, off - bytes.LastIndexByte(src[:off], '\n')
}

// object reads the object whose '{' is at open.
func (d *doc) object(open int) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(d.clean[open:]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return object{}, fmt.Errorf("no object at offset %d", open)
	}
	o := object{open: open}
	for dec.More() {
		keyStart := open + int(dec.InputOffset())
		for keyStart < len(d.clean) && (isSpace(d.clean[keyStart]) || d.clean[keyStart] == ',') {
			keyStart++
		}
		tok, err := dec.Token()
		if err != nil {
			return object{}, err
		}
		key, _ := tok.(string)
		valStart := open + int(dec.InputOffset())
		for valStart < len(d.clean) && (isSpace(d.clean[valStart]) || d.clean[valStart] == ':') {
			valStart++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return object{}, err
		}
		o.members = append(o.members, member{key: key, keyStart: keyStart, valStart: valStart, valEnd: open + int(dec.InputOffset())})
	}
	if _, err := dec.Token(); err != nil {
		return object{}, err
	}
	o.close = open + int(dec.InputOffset()) - 1
	return o, nil
}

// walk follows path from the top-level object down to the object that holds
// the path's last key. It stops early, with the index of the first key that
// is missing, when part of the path does not exist.
func (d *doc) walk(path []string) (o object, depth int, err error) {
	if o, err = d.object(d.root); err != nil {
		return object{}, 0, err
	}
	for depth = 0; depth < len(path)-1; depth++ {
		i := o.find(path[depth])
		if i < 0 {
			return o, depth, nil
		}
		m := o.members[i]
		if d.clean[m.valStart] != '{' {
			return object{}, 0, fmt.Errorf("%q is not an object", dotted(path[:depth+1]))
		}
		if o, err = d.object(m.valStart); err != nil {
			return object{}, 0, err
		}
	}
	return o, depth, nil
}

func dotted(path []string) string { return strings.Join(path, ".") }

// getJSON returns the value at path (as JSON, comments blanked) and whether
// it exists.
func getJSON(src []byte, path ...string) (json.RawMessage, bool, error) {
	d, err := parseDoc(src)
	if err != nil {
		return nil, false, err
	}
	o, depth, err := d.walk(path)
	if err != nil || depth < len(path)-1 {
		return nil, false, err
	}
	i := o.find(path[len(path)-1])
	if i < 0 {
		return nil, false, nil
	}
	m := o.members[i]
	return json.RawMessage(d.clean[m.valStart:m.valEnd]), true, nil
}
