// Package procid identifies processes exactly and judges whether an
// identified process is still running.
//
// A pid alone says little: pids are reused, and a pid read on one machine
// (or in one pid namespace, or before a reboot) means nothing elsewhere. An
// [Identity] therefore carries the host, the boot and the exact start time
// of the process next to its pid, and [Check] answers [Gone] only when the
// operating system proves that this exact process no longer runs. When the
// facts cannot be read or belong to another host, it answers [Unknown] and
// leaves the decision to slower means such as timeouts.
//
// [WatchExit] turns the death of a process into a closed channel where the
// platform can do that without polling (Linux, through a pidfd).
package procid
