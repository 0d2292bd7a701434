// Package testproc runs real child processes in tests by re-executing the
// test binary as a named helper, so tests can observe process lifetimes
// (start, exit, kill, zombies) without external programs.
//
// A test package registers helpers with [Register] and calls [Main] from
// its TestMain. [Start] runs the test binary again with the environment
// variable STICK_TESTPROC_HELPER set to the helper's name; [Main] in the
// child sees it, removes it from its own environment (so processes the
// helper starts do not run as helpers by accident) and runs the helper
// instead of the tests.
//
// Children never outlive the test: each test's cleanup kills and reaps
// them, and on Linux the kernel kills them with SIGKILL if the test
// process dies first.
package testproc
