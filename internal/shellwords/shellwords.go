// Package shellwords splits a command held in an environment variable
// ($VISUAL, $EDITOR) into its words the way a POSIX shell would, without
// running a shell: quotes and backslashes are honoured, nothing is
// expanded, so EDITOR="code --wait" runs code with the argument --wait.
package shellwords

import (
	"errors"
	"strings"
)

// Split splits s into words as a POSIX shell does, without expanding
// anything: blanks separate words; single quotes keep everything; double
// quotes keep everything but a backslash before $ ` " \ or a newline; a
// backslash outside quotes keeps the next character. Its error completes a
// sentence that names the variable: "has an unterminated single quote",
// "has an unterminated double quote", "names no command".
func Split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					w.WriteByte(s[i])
				}
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("has an unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			closed := false
			for i++; i < len(s); i++ {
				if s[i] == '"' {
					closed = true
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				w.WriteByte(s[i])
			}
			if !closed {
				return nil, errors.New("has an unterminated double quote")
			}
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("names no command")
	}
	return words, nil
}
