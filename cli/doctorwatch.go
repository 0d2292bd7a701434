package cli

import (
	"fmt"

	"github.com/stickhq/stick/store"
)

// watchCheck reports whether waiters can watch files for commits (a
// handoff in milliseconds) or must poll (about a second), and how close
// this user is to the inotify instance limit.
func watchCheck(r store.WatchReport) check {
	const name = "file watching"
	usage := ""
	if r.Limit > 0 {
		usage = fmt.Sprintf(" (%d of %d inotify instances of this user in use)", r.Used, r.Limit)
	}
	switch {
	case r.Err != nil:
		return check{name, checkWarn, fmt.Sprintf("cannot watch files: %v; waiting stick processes poll, so a handoff takes about a second instead of milliseconds%s", r.Err, usage), store.WatchHint}
	case r.Limit > 0 && r.Used*10 >= r.Limit*9:
		return check{name, checkWarn, "nearly out of file watchers" + usage + "; stick processes started later will poll, so their handoffs take about a second", store.WatchHint}
	}
	return check{name, checkOK, "waiters are woken by file events" + usage, ""}
}
