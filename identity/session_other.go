//go:build !unix

package identity

// sessionLeader reports that there are no sessions to anchor to here.
func sessionLeader() (int, bool) { return 0, false }
