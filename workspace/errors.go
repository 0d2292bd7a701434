package workspace

import "errors"

// ErrEmptyPath is wrapped when a caller passes an empty path, which names no
// directory and would otherwise silently mean the working directory.
var ErrEmptyPath = errors.New("empty path")

// ErrNotFound is wrapped (together with fs.ErrNotExist) when a path does not
// exist, so callers can tell "no such path" apart from other failures with
// errors.Is.
var ErrNotFound = errors.New("path not found")

// ErrInvalidPath is wrapped when a path can never name a usable directory:
// it holds a NUL byte, or Root was given something other than an absolute
// directory.
var ErrInvalidPath = errors.New("invalid path")
