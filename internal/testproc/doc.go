// Package testproc runs real child processes in tests by re-executing the
// test binary as a named helper, so tests can observe process lifetimes
// (start, exit, kill, zombies) without external programs.
//
// A test package registers helpers with [Register] and calls [Main] from
// its TestMain. Helpers are roles of package reexec, and [Start] runs the
// test binary again through it, with the helper's name in the environment
// variable STICK_REEXEC_ROLE; [Main] in the child sees it, removes it from
// its own environment (so processes the helper starts do not run as
// helpers by accident) and runs the helper instead of the tests. The
// running child is supervised by package childproc.
//
// Children never outlive the test: each test's cleanup kills and reaps
// them, and on Linux the kernel kills them with SIGKILL if the test
// process dies first.
package testproc
