// Package pgtest gives tests a PostgreSQL database of their own: a
// throwaway cluster started once per test binary (initdb into a temporary
// directory, a Unix socket only, run as an unprivileged user, stopped at
// the end), or an existing server named by STICK_TEST_DATABASE_URL, and a
// fresh database per test on it.
//
// A test binary that uses it calls Main from its TestMain, and each test
// calls URL for the address of its own database. Where PostgreSQL is not
// installed, URL skips the test with a message that says how to install
// it, or fails it when STICK_REQUIRE_POSTGRES=1 or CI is set, so that a
// missing server is never silently skipped in CI.
package pgtest
