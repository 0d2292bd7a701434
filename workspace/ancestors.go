package workspace

import "path/filepath"

// Ancestors returns the chain of directories from path up to and including
// root, deepest first, so a caller can check every room that could cover
// path. Both arguments are expected to be canonical (see Canonical): they
// are cleaned and compared as strings, one whole component at a time with
// filepath.Dir, without touching the filesystem, so Windows volume names
// stay intact and "/repo2/x" is not taken to be inside "/repo". If path is
// not root or below it, or either argument is not absolute, Ancestors
// returns just []string{path}.
func Ancestors(path, root string) []string {
	if !filepath.IsAbs(path) || !filepath.IsAbs(root) {
		return []string{path}
	}
	p, r := filepath.Clean(path), filepath.Clean(root)
	if r == filepath.VolumeName(r) {
		// A bare UNC share (\\host\share) is the root of its volume;
		// filepath.Dir spells that with a trailing separator.
		r += string(filepath.Separator)
	}
	chain := []string{p}
	for cur := p; cur != r; {
		parent := filepath.Dir(cur)
		if parent == cur {
			// Reached the filesystem root without meeting root.
			return []string{path}
		}
		chain = append(chain, parent)
		cur = parent
	}
	return chain
}
