// Package workspace decides which directory a context path belongs to: it
// canonicalises paths, finds the preferred workspace root above them and
// lists the ancestor chain between the two, so every agent keys the same
// room with the same string. It also names a room's workspace the same way
// on every host (its key: the repository's normalised origin remote and
// the room's path inside it, or a key local to one host), and Local
// resolves all of that on this host's disk, reading git's files without
// running git.
package workspace
