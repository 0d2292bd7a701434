//go:build !unix

package ownerfs

import "io/fs"

// NoFollow is 0 where the open call has no such flag; OpenFile checks for
// a link before opening instead.
const NoFollow = 0

// checksOwner reports whether this platform has file owners and modes to
// check: not here (Windows protects the user's profile by ACLs).
const checksOwner = false

func ownerOf(fs.FileInfo) (int, bool) { return 0, false }

func me() int { return -1 }
