package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// caseCache maps a volume key (see volumeKey) to whether name lookups on
// that volume ignore letter case, so each filesystem is probed only once.
var caseCache sync.Map

// foldPath lower-cases every component of the absolute, clean, existing
// path p whose parent directory lives on a case-insensitive filesystem, so
// the same directory spelt in different cases yields one string. Deciding
// per component keeps the result an existing path even when a
// case-sensitive volume is mounted under a case-insensitive one (or the
// reverse). A Windows volume name is always folded: drive letters and UNC
// host and share names are case-insensitive.
func foldPath(p string) string {
	vol := filepath.VolumeName(p)
	rest := p[len(vol):]
	sep := string(filepath.Separator)
	trimmed := strings.TrimPrefix(rest, sep)
	lead := rest[:len(rest)-len(trimmed)]
	vol = strings.ToLower(vol)
	if trimmed == "" {
		return vol + rest
	}
	dir := p[:len(p)-len(trimmed)]
	names := strings.Split(trimmed, sep)
	for i, name := range names {
		if folded := lowerName(name); folded != name &&
			insensitiveAt(dir, name) && sameEntry(dir, name, folded) {
			names[i] = folded
		}
		dir = filepath.Join(dir, name)
	}
	return vol + lead + strings.Join(names, sep)
}

// insensitiveAt reports whether name lookups inside dir ignore letter case,
// using name (an existing entry of dir) as the probe. Answers are cached per
// volume; an undecided probe counts as case-sensitive and is not cached.
func insensitiveAt(dir, name string) bool {
	key, keyed := volumeKey(dir)
	if keyed {
		if v, ok := caseCache.Load(key); ok {
			insensitive, _ := v.(bool)
			return insensitive
		}
	}
	insensitive, decided := probeCase(dir, name)
	if keyed && decided {
		caseCache.Store(key, insensitive)
	}
	return insensitive
}

// probeCase decides whether the filesystem holding dir ignores letter case
// by looking up the existing entry name with its letters' case swapped and
// checking that both spellings reach the same file. decided is false when
// name has no letters with case or a lookup fails for a reason other than
// the swapped name not existing.
func probeCase(dir, name string) (insensitive, decided bool) {
	swapped := swapCase(name)
	if swapped == name {
		return false, false
	}
	orig, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		return false, false
	}
	alt, err := os.Lstat(filepath.Join(dir, swapped))
	if err != nil {
		return false, errors.Is(err, fs.ErrNotExist)
	}
	return os.SameFile(orig, alt), true
}

// sameEntry reports whether the names a and b inside dir reach the same
// file. It guards folding against names whose lower-case form the
// filesystem does not treat as equal (some Unicode letters fold
// differently).
func sameEntry(dir, a, b string) bool {
	fa, err := os.Lstat(filepath.Join(dir, a))
	if err != nil {
		return false
	}
	fb, err := os.Lstat(filepath.Join(dir, b))
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

// lowerName lower-cases s like strings.ToLower but keeps bytes that are not
// valid UTF-8 as they are, since they are still part of a real file name.
func lowerName(s string) string {
	return mapRunes(s, unicode.ToLower)
}

// swapCase turns lower-case letters upper and every other cased letter
// lower, producing a spelling that differs from s wherever s has letters
// with case.
func swapCase(s string) string {
	return mapRunes(s, func(r rune) rune {
		if l := unicode.ToLower(r); l != r {
			return l
		}
		return unicode.ToUpper(r)
	})
}

// mapRunes applies f to each valid rune of s, copying invalid UTF-8 bytes
// through unchanged.
func mapRunes(s string, f func(rune) rune) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteRune(f(r))
		i += size
	}
	return b.String()
}
