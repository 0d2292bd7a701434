//go:build !unix

package cli

// leadSession does nothing where there are no sessions.
func leadSession() {}
