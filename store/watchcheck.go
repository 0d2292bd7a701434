package store

// WatchReport says whether this process can watch files for changes, which
// is how waiters learn of commits within milliseconds; without it they
// poll and a handoff takes about a second.
type WatchReport struct {
	// Err is why no file watcher can be had; nil when one can.
	Err error
	// Used and Limit count this user's inotify instances and their limit
	// (fs.inotify.max_user_instances), where known (Linux); 0 otherwise.
	Used, Limit int
}

// CheckWatch tries to create a file watcher, as every stick process that
// waits does, and closes it again; on Linux it also counts the user's
// inotify instances. It writes nothing.
func CheckWatch() WatchReport {
	var r WatchReport
	fsw, err := fsHub.newWatcher()
	if err != nil {
		r.Err = err
	} else {
		_ = fsw.Close()
	}
	r.Used, r.Limit = inotifyUsage()
	return r
}
