package procid

import "errors"

// ErrNoProcess reports that no process with the requested pid exists.
// [Of], [Self] and [Parent] wrap it, so callers can tell "absent" apart
// from "could not look" with errors.Is.
var ErrNoProcess = errors.New("no such process")
