package mcpserver

import (
	"strconv"
	"unicode/utf8"

	"github.com/stickhq/stick/internal/printable"
	"github.com/stickhq/stick/stick"
)

// invalidUTF8Field finds the first JSON string in raw that is not valid
// UTF-8: raw bytes that are no UTF-8, or a \u escape of a lone UTF-16
// surrogate (\ud800 without its pair). encoding/json would silently turn
// either into U+FFFD, so it is looked for in the raw bytes. field is the
// place of that string as decode names fields (context_path,
// outbox[2].text, or the key itself for a bad key); bad is false when every
// string is valid. raw need not be valid JSON: what is not a string is
// skipped.
func invalidUTF8Field(raw []byte) (field string, bad bool) {
	if utf8.Valid(raw) && !hasSurrogateEscape(raw) {
		return "", false
	}
	type level struct {
		array bool
		key   string // the current key of an object
		index int    // the current index of an array
		isKey bool   // an object expects a key next
	}
	var stack []level
	path := func(last string) string {
		p := ""
		for _, l := range stack {
			if l.array {
				p += "[" + strconv.Itoa(l.index) + "]"
			} else if !l.isKey || last == "" {
				p = join(p, l.key)
			}
		}
		if last != "" {
			p = join(p, last)
		}
		return p
	}
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{':
			stack = append(stack, level{isKey: true})
		case '[':
			stack = append(stack, level{array: true})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].array {
					stack[n-1].index++
				} else {
					stack[n-1].isKey = true
				}
			}
		case '"':
			end, s, bad := scanString(raw, i+1)
			n := len(stack)
			if n > 0 && !stack[n-1].array && stack[n-1].isKey {
				if bad {
					// A bad key is named by the object it stands in and
					// what is printable of it.
					stack = stack[:n-1]
					p := path("")
					if name := printable.Keep(s, stick.MaxQuoted); name != "" {
						p = join(p, name)
					}
					if p == "" {
						p = "arguments"
					}
					return p, true
				}
				stack[n-1].key, stack[n-1].isKey = s, false
			} else if bad {
				if p := path(""); n > 0 && p != "" {
					return p, true
				}
				return "arguments", true
			}
			i = end
		}
	}
	return "", false
}

// scanString reads the JSON string whose contents start at raw[start]: it
// returns the index of the closing quote, the contents (escapes kept as
// written, enough to name a key) and whether they hold invalid UTF-8 or a
// lone surrogate escape.
func scanString(raw []byte, start int) (end int, s string, bad bool) {
	i := start
	for i < len(raw) && raw[i] != '"' {
		switch {
		case raw[i] == '\\' && i+1 < len(raw) && raw[i+1] == 'u' && i+6 <= len(raw):
			r, ok := hex4(raw[i+2 : i+6])
			switch {
			case ok && r >= 0xd800 && r < 0xdc00:
				lo, ok2 := rune(0), false
				if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					lo, ok2 = hex4(raw[i+8 : i+12])
				}
				if !ok2 || lo < 0xdc00 || lo >= 0xe000 {
					bad = true
					i += 6
				} else {
					i += 12
				}
			case ok && r >= 0xdc00 && r < 0xe000:
				bad = true
				i += 6
			default:
				i += 6
			}
		case raw[i] == '\\':
			i += 2
		case raw[i] < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				bad = true
			}
			i += size
		}
	}
	if i > len(raw) {
		i = len(raw)
	}
	return i, string(raw[start:i]), bad
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	n, err := strconv.ParseUint(string(b), 16, 32)
	return rune(n), err == nil
}

// hasSurrogateEscape reports whether raw may hold a \u escape of a UTF-16
// surrogate (\ud800 to \udfff, any letter case).
func hasSurrogateEscape(raw []byte) bool {
	for i := 0; i+3 < len(raw); i++ {
		if raw[i] == '\\' && raw[i+1] == 'u' && (raw[i+2] == 'd' || raw[i+2] == 'D') {
			switch raw[i+3] {
			case '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'A', 'B', 'C', 'D', 'E', 'F':
				return true
			}
		}
	}
	return false
}
