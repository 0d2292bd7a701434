// Package filelock provides an exclusive advisory lock on a file that the
// kernel drops when its holder dies, so processes sharing a data directory
// can serialise work without ever leaving a lock behind.
package filelock
