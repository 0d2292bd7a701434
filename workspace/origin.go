package workspace

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxGitFile bounds what is read of a .git file, a commondir file and a
// repository's config file: real ones are a few hundred bytes.
const maxGitFile = 1 << 20

// Origin returns the URL of the remote named origin of the git work tree
// whose top level is top (a directory holding a .git entry), read from the
// repository's config file without running git. It follows a .git file to
// the git directory it names (a linked worktree or a submodule) and a
// commondir file to the directory the config is shared in (a linked
// worktree's main repository). ok is false when there is no origin or
// anything on the way is missing, is not a regular file, is too large or
// cannot be read: a caller then keys the room as local. It only reads
// regular files, so a FIFO in place of a config file cannot make it wait.
//
// Only the repository's own config file is read: includes, the user's and
// the system's config files and url.<base>.insteadOf rewrites are not
// applied, so a remote written with an insteadOf alias gives the alias.
func Origin(top string) (url string, ok bool) {
	dir, ok := gitDir(top)
	if !ok {
		return "", false
	}
	if common, err := readSmall(filepath.Join(dir, "commondir")); err == nil {
		if c := strings.TrimSpace(string(common)); c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(dir, c)
			}
			dir = c
		}
	}
	data, err := readSmall(filepath.Join(dir, "config"))
	if err != nil {
		return "", false
	}
	return configValue(data, "remote", "origin", "url")
}

// gitDir returns the git directory of the work tree at top: its .git
// directory, or the directory its .git file names ("gitdir: <path>",
// relative to top unless absolute).
func gitDir(top string) (string, bool) {
	entry := filepath.Join(top, ".git")
	info, err := os.Stat(entry)
	switch {
	case err != nil:
		return "", false
	case info.IsDir():
		return entry, true
	}
	data, err := readSmall(entry)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	p, found := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	p = strings.TrimSpace(p)
	if !found || p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(top, p)
	}
	return p, true
}

// readSmall reads the regular file name, refusing anything else (a FIFO
// or a device would block or never end) and a file over maxGitFile bytes.
func readSmall(name string) ([]byte, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if info.Size() > maxGitFile {
		return nil, errors.New("too large")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGitFile+1))
	if err == nil && len(data) > maxGitFile {
		return nil, errors.New("too large")
	}
	return data, err
}

// configValue returns the first value of key in the subsection sub of
// section of a git config file, as git config --get-all lists it first.
// It follows git's syntax: section and key names ignore letter case, a
// subsection name in quotes does not (the old [section.sub] form is
// lower-cased), "#" and ";" start comments outside quotes, values may be
// quoted, hold escapes and go on over lines that end in a backslash. A
// line it cannot read ends the search for nothing.
func configValue(data []byte, section, sub, key string) (string, bool) {
	var cur struct {
		section, sub string
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxGitFile+1)
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t")
		if strings.HasPrefix(line, "[") {
			var rest string
			var ok bool
			cur.section, cur.sub, rest, ok = configHeader(line)
			if !ok {
				return "", false
			}
			line = strings.TrimLeft(rest, " \t")
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		name, value, _ := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		v, more, ok := configText(value)
		for ok && more && sc.Scan() {
			var next string
			next, more, ok = configText(sc.Text())
			v += next
		}
		if !ok {
			return "", false
		}
		if strings.EqualFold(cur.section, section) && cur.sub == sub && strings.EqualFold(name, key) {
			return v, true
		}
	}
	return "", false
}

// configHeader reads a section header, [section], [section "sub"] or
// [section.sub], and returns what follows it on the line.
func configHeader(line string) (section, sub, rest string, ok bool) {
	body := line[1:]
	if q := strings.IndexByte(body, '"'); q >= 0 && q < strings.IndexByte(body, ']') {
		section = strings.TrimSpace(body[:q])
		var b strings.Builder
		for i := q + 1; i < len(body); i++ {
			switch c := body[i]; c {
			case '\\':
				if i+1 < len(body) {
					i++
					b.WriteByte(body[i])
				}
			case '"':
				end := strings.IndexByte(body[i+1:], ']')
				if end < 0 || strings.TrimSpace(body[i+1:i+1+end]) != "" {
					return "", "", "", false
				}
				return section, b.String(), body[i+2+end:], true
			default:
				b.WriteByte(c)
			}
		}
		return "", "", "", false
	}
	end := strings.IndexByte(body, ']')
	if end < 0 {
		return "", "", "", false
	}
	name := strings.TrimSpace(body[:end])
	section, sub, _ = strings.Cut(name, ".")
	return section, strings.ToLower(sub), body[end+1:], true
}

// configText reads a value as git does: it drops a comment outside quotes,
// trailing blanks outside quotes and the quotes themselves, and turns the
// escapes \", \\, \n, \t and \b into what they stand for. more is true
// when the line ends in a backslash, continuing the value on the next.
func configText(s string) (v string, more, ok bool) {
	var b strings.Builder
	quoted := false
	blanks := 0 // unquoted blanks not yet written
	s = strings.TrimLeft(s, " \t")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 == len(s) {
				return b.String(), true, true
			}
			i++
			for ; blanks > 0; blanks-- {
				b.WriteByte(' ')
			}
			switch s[i] {
			case '"', '\\':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				return "", false, false
			}
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '#' || c == ';'):
			return b.String(), false, !quoted
		case !quoted && (c == ' ' || c == '\t'):
			blanks++
		default:
			for ; blanks > 0; blanks-- {
				b.WriteByte(' ')
			}
			b.WriteByte(c)
		}
	}
	if strings.HasSuffix(s, "\r") {
		// A CRLF file: the carriage return is no part of the value.
		return strings.TrimSuffix(b.String(), "\r"), false, !quoted
	}
	return b.String(), false, !quoted
}
