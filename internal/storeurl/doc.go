// Package storeurl opens the store a database URL names: a postgres:// or
// postgresql:// URL opens package postgres's store; with no URL the
// frontends keep this host's SQLite database (package store). It is the
// one place that tells the two apart, for every command that opens a
// store, and it never prints a URL's password.
package storeurl
