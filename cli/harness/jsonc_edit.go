package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// fields is a JSON object to write, with its keys in order.
type fields []field

// field is one key and value of fields. A value is fields, []fields (an
// array of objects), []string, or anything encoding/json writes on one line (strings, numbers, booleans).
type field struct {
	key   string
	value any
}

// setJSON sets the value at path, creating the objects on the way, and
// returns the edited document. An existing value is replaced in place; a new
// member is added after the last member of its object, in the object's
// indentation, newline and trailing-comma style.
func setJSON(src []byte, value any, path ...string) ([]byte, error) {
	d, err := parseDoc(src)
	if err != nil {
		return nil, err
	}
	o, depth, err := d.walk(path)
	if err != nil {
		return nil, err
	}
	key := path[depth]
	if depth == len(path)-1 {
		if i := o.find(key); i >= 0 {
			return d.replace(o, o.members[i], value), nil
		}
	}
	for j := len(path) - 1; j > depth; j-- {
		value = fields{{path[j], value}}
	}
	return d.insert(o, key, value), nil
}

// isEmptyObject reports whether src is an empty object, whatever white
// space it holds.
func isEmptyObject(src []byte) bool { return string(bytes.Join(bytes.Fields(src), nil)) == "{}" }

// deleteEmpty removes the member at path when it is an empty object: a
// container stick's entry was the last of.
func deleteEmpty(src []byte, path ...string) ([]byte, error) {
	rest, ok, err := getJSON(src, path...)
	if err != nil || !ok || !isEmptyObject(rest) {
		return src, err
	}
	src, _, err = deleteJSON(src, path...)
	return src, err
}

// deleteJSON removes the member at path, with its separator and, when it
// stood on lines of its own, those lines. It reports whether there was one.
func deleteJSON(src []byte, path ...string) ([]byte, bool, error) {
	d, err := parseDoc(src)
	if err != nil {
		return nil, false, err
	}
	o, depth, err := d.walk(path)
	if err != nil || depth < len(path)-1 {
		return src, false, err
	}
	i := o.find(path[len(path)-1])
	if i < 0 {
		return src, false, nil
	}
	return d.remove(o, i), true, nil
}

// layout is how an object is written: on several lines or one, the
// indentation of its members, one level of indentation, and the newline.
type layout struct {
	multiline   bool
	indent      string
	unit        string
	closeIndent string
	nl          string
}

func (d *doc) layout(o object) layout {
	l := layout{unit: d.indentUnit(), nl: "\n", closeIndent: lineIndent(d.src, o.open)}
	if bytes.Contains(d.src, []byte("\r\n")) {
		l.nl = "\r\n"
	}
	if onlySpaceBefore(d.src, o.close) {
		l.closeIndent = lineIndent(d.src, o.close)
	}
	l.indent = l.closeIndent + l.unit
	if len(o.members) == 0 {
		// An empty object opens onto lines of its own, unless it sits in a
		// document written on one line.
		l.multiline = o.open == d.root || bytes.IndexByte(bytes.TrimSpace(d.src), '\n') >= 0
		return l
	}
	l.multiline = bytes.IndexByte(d.src[o.open:o.close], '\n') >= 0
	if first := o.members[0].keyStart; onlySpaceBefore(d.src, first) {
		l.indent = lineIndent(d.src, first)
		if u, ok := strings.CutPrefix(l.indent, l.closeIndent); ok && u != "" {
			l.unit = u
		}
	}
	return l
}

// indentUnit guesses one level of indentation: the leading white space of
// the first indented line, else two spaces.
func (d *doc) indentUnit() string {
	for line := range bytes.Lines(d.src) {
		n := 0
		for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n > 0 && n < len(line) && !isSpace(line[n]) {
			return string(line[:n])
		}
	}
	return "  "
}

func (d *doc) insert(o object, key string, value any) []byte {
	l := d.layout(o)
	text := quote(key) + ": " + format(value, l.indent, l)
	if len(o.members) == 0 {
		if !l.multiline {
			return splice(d.src, o.close, o.close, text)
		}
		if onlySpaceBefore(d.src, o.close) {
			at := lineStart(d.src, o.close)
			return splice(d.src, at, at, l.indent+text+l.nl)
		}
		return splice(d.src, o.close, o.close, l.nl+l.indent+text+l.nl+l.closeIndent)
	}
	last := o.members[len(o.members)-1]
	comma := d.trailingComma(last.valEnd, o.close)
	if l.multiline && onlySpaceBefore(d.src, o.close) {
		at := lineStart(d.src, o.close)
		if comma >= 0 {
			return splice(d.src, at, at, l.indent+text+","+l.nl)
		}
		out := splice(d.src, at, at, l.indent+text+l.nl)
		return splice(out, last.valEnd, last.valEnd, ",")
	}
	sep := ", "
	if l.multiline {
		sep = "," + l.nl + l.indent
	}
	return splice(d.src, last.valEnd, last.valEnd, sep+text)
}

func (d *doc) replace(o object, m member, value any) []byte {
	l := d.layout(o)
	indent := l.indent
	if onlySpaceBefore(d.src, m.keyStart) {
		indent = lineIndent(d.src, m.keyStart)
	}
	return splice(d.src, m.valStart, m.valEnd, format(value, indent, l))
}

func (d *doc) remove(o object, i int) []byte {
	m := o.members[i]
	ownLines := onlySpaceBefore(d.src, m.keyStart) && onlyCommaAfter(d.src, m.valEnd)
	start, end := lineStart(d.src, m.keyStart), lineEnd(d.src, m.valEnd)
	if i < len(o.members)-1 {
		next := o.members[i+1]
		if ownLines && end <= next.keyStart {
			return splice(d.src, start, end, "")
		}
		return splice(d.src, m.keyStart, next.keyStart, "")
	}
	comma := d.trailingComma(m.valEnd, o.close)
	if i == 0 {
		if !ownLines {
			end = m.valEnd
			if comma >= 0 {
				end = comma + 1
			}
			return splice(d.src, m.keyStart, end, "")
		}
		out := splice(d.src, start, end, "")
		if close := o.close - (end - start); len(bytes.TrimSpace(out[o.open+1:close])) == 0 {
			out = splice(out, o.open+1, close, "") // what is left of "{}" after an insert
		}
		return out
	}
	prev := o.members[i-1]
	if !ownLines {
		return splice(d.src, prev.valEnd, m.valEnd, "")
	}
	out := splice(d.src, start, end, "")
	if comma < 0 {
		if c := bytes.IndexByte(d.clean[prev.valEnd:m.keyStart], ','); c >= 0 {
			out = splice(out, prev.valEnd+c, prev.valEnd+c+1, "")
		}
	}
	return out
}

// trailingComma returns the offset of a trailing comma in [from, to), or -1.
func (d *doc) trailingComma(from, to int) int {
	for i := from; i < to; i++ {
		if d.trailing[i] {
			return i
		}
	}
	return -1
}

// format writes value for a member whose line is indented by indent.
func format(value any, indent string, l layout) string {
	switch v := value.(type) {
	case fields:
		items := make([]string, len(v))
		for i, f := range v {
			items[i] = quote(f.key) + ": " + format(f.value, indent+l.unit, l)
		}
		return enclose("{", "}", items, indent, l)
	case []fields:
		items := make([]string, len(v))
		for i, f := range v {
			items[i] = format(f, indent+l.unit, l)
		}
		return enclose("[", "]", items, indent, l)
	case []string:
		items := make([]string, len(v))
		for i, s := range v {
			items[i] = quote(s)
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	return scalar(value)
}

// enclose writes items between the brackets left and right: one per
// line, indented one unit deeper than indent, in a multiline layout; else
// on one line.
func enclose(left, right string, items []string, indent string, l layout) string {
	if len(items) == 0 {
		return left + right
	}
	var b strings.Builder
	b.WriteString(left)
	for i, item := range items {
		if i > 0 {
			b.WriteString(",")
		}
		if l.multiline {
			b.WriteString(l.nl + indent + l.unit)
		} else if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(item)
	}
	if l.multiline {
		b.WriteString(l.nl + indent)
	}
	b.WriteString(right)
	return b.String()
}

func quote(s string) string { return scalar(s) }

// scalar writes v as JSON on one line, without escaping <, > and &.
func scalar(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("harness: cannot write %T as JSON: %v", v, err))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func splice(src []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(text))
	out = append(out, src[:from]...)
	out = append(out, text...)
	return append(out, src[to:]...)
}

// lineStart returns the offset of the first byte of the line holding off.
func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd returns the offset after the newline that ends the line holding
// off, or the end of src.
func lineEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}

// lineIndent returns the leading spaces and tabs of the line holding off.
func lineIndent(src []byte, off int) string {
	start := lineStart(src, off)
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// onlySpaceBefore reports whether off is the first non-blank byte of its line.
func onlySpaceBefore(src []byte, off int) bool {
	return len(bytes.Trim(src[lineStart(src, off):off], " \t")) == 0
}

// onlyCommaAfter reports whether the rest of the line from off holds nothing
// but blanks and at most one comma.
func onlyCommaAfter(src []byte, off int) bool {
	rest := src[off:lineEnd(src, off)]
	return bytes.Count(rest, []byte(",")) <= 1 && len(bytes.Trim(rest, " \t\r\n,")) == 0
}
