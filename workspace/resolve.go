package workspace

// Resolution is the outcome of resolving a context path: where the caller
// is and which workspace root its room should be keyed by.
type Resolution struct {
	Path string // canonical form of the requested path
	// Choice holds the preferred workspace root for Path (Root) and how it
	// was chosen.
	Choice
}

// Resolve canonicalises path and finds its workspace root in one call, the
// usual entry point for turning a user-supplied path into a room key. Its
// errors are those of Canonical and Root; a root that may hold no room is
// no error but reported in Choice.Refused.
func Resolve(path string) (Resolution, error) {
	canon, err := Canonical(path)
	if err != nil {
		return Resolution{}, err
	}
	c, err := Locate(canon)
	if err != nil {
		return Resolution{}, err
	}
	return Resolution{Path: canon, Choice: c}, nil
}
