//go:build !linux && !darwin && !windows

package procid

import "errors"

// readBootID returns no boot id: none is known on this platform.
func readBootID() (string, error) {
	return "", nil
}

// readHostID cannot read a host id on this platform.
func readHostID() (string, error) {
	return "", errUnsupported
}

// errUnsupported reports that this platform cannot provide a fact.
var errUnsupported = errors.New("not supported on this platform")
