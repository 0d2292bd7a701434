//go:build !unix

package wake

import "os/exec"

// ownGroup leaves cmd as it is: without Unix process groups, a stopped
// attempt kills codex alone, and the wait for its output is bounded by
// waitDelay.
func ownGroup(*exec.Cmd) {}
