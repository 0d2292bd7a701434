package harness

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// grokLookup reads Grok Build's configuration, ~/.grok/config.toml, where
// 'grok mcp add' keeps its servers as
//
//	[mcp_servers.stick]
//	command = "/usr/local/bin/stick"
//	args = ["mcp"]
//
// Grok Build has no command that prints one server in a documented form, so
// stick reads the table itself. A "stick" server stick cannot read (written
// inline, or with values that are not plain strings) counts as registered
// with another command, and is replaced.
func grokLookup(context.Context, string) ([]string, bool, error) {
	dir, err := homeDir(".grok")()
	if err != nil {
		return nil, false, err
	}
	src, err := os.ReadFile(filepath.Join(dir, "config.toml"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return tomlServer(string(src))
}

// tomlServer finds the table [mcp_servers.stick] in a TOML document and
// returns its command and args; found with an empty command line when the
// server is there in a form it does not read.
func tomlServer(src string) (cmdline []string, found bool, err error) {
	const server = "mcp_servers." + ServerName
	values := map[string]string{}
	table := ""
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "[") {
			header := strings.TrimLeft(line, "[")
			if end := strings.IndexByte(header, ']'); end >= 0 {
				header = header[:end]
			}
			table = tomlKey(header)
			if table == server || strings.HasPrefix(table, server+".") {
				found = true
			}
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		full := tomlKey(key)
		if table != "" {
			full = table + "." + full
		}
		if full != server && !strings.HasPrefix(full, server+".") {
			continue
		}
		found = true
		value = strings.TrimSpace(value)
		// An array may run over several lines, up to its closing bracket.
		for strings.HasPrefix(value, "[") && !closedArray(value) && i+1 < len(lines) {
			i++
			value += "\n" + lines[i]
		}
		values[strings.TrimPrefix(full, server+".")] = value
	}
	if !found {
		return nil, false, nil
	}
	command, ok := tomlString(values["command"])
	if !ok || command == "" {
		return []string{}, true, nil
	}
	args := []string{}
	if raw, there := values["args"]; there {
		if args, ok = tomlStrings(raw); !ok {
			return []string{}, true, nil
		}
	}
	return append([]string{command}, args...), true, nil
}

// tomlKey normalises a (dotted) key: no spaces around the dots, quotes
// removed from simple quoted parts.
func tomlKey(k string) string {
	parts := strings.Split(strings.TrimSpace(k), ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' || p[0] == '\'') && p[len(p)-1] == p[0] {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

// tomlString reads one string value (basic or literal), with an optional
// comment after it.
func tomlString(v string) (string, bool) {
	s, rest, ok := nextString(strings.TrimSpace(v))
	if !ok || stripComment(rest) != "" {
		return "", false
	}
	return s, true
}

// tomlStrings reads an array of strings, over one or several lines, with
// comments and a trailing comma allowed.
func tomlStrings(v string) ([]string, bool) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "[") {
		return nil, false
	}
	v = v[1:]
	out := []string{}
	for {
		v = skipTOMLSpace(v)
		if strings.HasPrefix(v, "]") {
			return out, stripComment(v[1:]) == ""
		}
		s, rest, ok := nextString(v)
		if !ok {
			return nil, false
		}
		out = append(out, s)
		v = skipTOMLSpace(rest)
		if strings.HasPrefix(v, ",") {
			v = v[1:]
		} else if !strings.HasPrefix(v, "]") {
			return nil, false
		}
	}
}

// nextString reads a basic ("...") or literal ('...') string at the start of
// v and returns it with what follows it.
func nextString(v string) (s, rest string, ok bool) {
	switch {
	case strings.HasPrefix(v, `"""`) || strings.HasPrefix(v, "'''"):
		return "", "", false
	case strings.HasPrefix(v, "'"):
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		return v[1 : end+1], v[end+2:], true
	case strings.HasPrefix(v, `"`):
		for i := 1; i < len(v); i++ {
			switch v[i] {
			case '\\':
				i++
			case '"':
				if json.Unmarshal([]byte(v[:i+1]), &s) != nil {
					return "", "", false
				}
				return s, v[i+1:], true
			}
		}
	}
	return "", "", false
}

// skipTOMLSpace skips white space, newlines and comments.
func skipTOMLSpace(v string) string {
	for {
		v = strings.TrimLeft(v, " \t\r\n")
		if !strings.HasPrefix(v, "#") {
			return v
		}
		if nl := strings.IndexByte(v, '\n'); nl >= 0 {
			v = v[nl+1:]
		} else {
			return ""
		}
	}
}

// stripComment is what is left of a line's tail without its comment.
func stripComment(v string) string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "#") {
		return ""
	}
	return v
}

// closedArray reports whether an array value has its closing bracket.
func closedArray(v string) bool {
	_, ok := tomlStrings(v)
	if ok {
		return true
	}
	return strings.Contains(skipStringsAndComments(v), "]")
}

// skipStringsAndComments returns v without its strings and comments, to look
// for brackets.
func skipStringsAndComments(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '"', '\'':
			if _, rest, ok := nextString(v[i:]); ok {
				i = len(v) - len(rest) - 1
				continue
			}
			return b.String()
		case '#':
			nl := strings.IndexByte(v[i:], '\n')
			if nl < 0 {
				return b.String()
			}
			i += nl
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
