// Package ownerfs keeps the files of stick's data directory its user's
// alone: it refuses a directory another user owns or could write in, never
// follows a symbolic link to a file it opens there, and makes what it
// creates owner-only whatever the umask.
package ownerfs
