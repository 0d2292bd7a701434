package workspace

// Resolution is the outcome of resolving a context path: where the caller
// is and which workspace root its room should be keyed by.
type Resolution struct {
	Path string // canonical form of the requested path
	Root string // preferred workspace root for Path
}

// Resolve canonicalises path and finds its workspace root in one call, the
// usual entry point for turning a user-supplied path into a room key. Its
// errors are those of Canonical and Root.
func Resolve(path string) (Resolution, error) {
	canon, err := Canonical(path)
	if err != nil {
		return Resolution{}, err
	}
	root, err := Root(canon)
	if err != nil {
		return Resolution{}, err
	}
	return Resolution{Path: canon, Root: root}, nil
}
