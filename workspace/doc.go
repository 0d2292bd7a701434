// Package workspace decides which directory a context path belongs to: it
// canonicalises paths, finds the preferred workspace root above them and
// lists the ancestor chain between the two, so every agent keys the same
// room with the same string.
package workspace
