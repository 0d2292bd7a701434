// Package httpcode is the one mapping of stick's error codes to HTTP
// statuses, which the hub's JSON API (package server) and its web page
// (package web) both answer with, so that a refusal has the same status
// whichever a client reads; and the codes of errors only the hub gives,
// which concern HTTP itself, not the protocol.
package httpcode
