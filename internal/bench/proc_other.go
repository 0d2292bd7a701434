//go:build !linux

package bench

import "os/exec"

// dieWithParent has no portable equivalent off Linux; children are killed
// on every exit path of a scenario instead.
func dieWithParent(*exec.Cmd) {}
