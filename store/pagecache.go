package store

import (
	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// The page cache's memory. SQLite empties a connection's page cache
// whenever another connection committed, and this driver's SQLite frees
// each page of it (its page caches are not kept apart per connection, so
// SQLite's per-connection bulk allocation is off), while the driver's
// allocator returns memory it frees to the system at once: with several
// processes taking turns, every transaction started on an emptied cache
// paid system calls per page to free its pages and to get them back. Pages
// that fit a slot of a buffer set aside at start-up are taken from and
// returned to that buffer instead; the rest are allocated as before.
const (
	// pageSlotSize holds a 4 KiB page, SQLite's default and stick's, with
	// its header.
	pageSlotSize = 4096 + 512
	// pageSlots is how many pages the buffer holds: the pages a few
	// transactions of a few connections touch. The buffer is reserved,
	// not touched: resident memory grows only with the slots in use.
	pageSlots = 256
)

// pageCacheConfigured is SQLite's result code for the configuration,
// SQLITE_OK (0) when it took effect.
var pageCacheConfigured = configurePageCache(pageSlotSize, pageSlots)

// configurePageCache sets SQLITE_CONFIG_PAGECACHE to a buffer of n slots
// of size bytes. It must run before SQLite initialises, so it runs as this
// package's variables are initialised; the buffer lives as long as the
// process.
func configurePageCache(size, n int32) int32 {
	tls := libc.NewTLS()
	defer tls.Close()
	buf := libc.Xmalloc(tls, uint64(size)*uint64(n))
	if buf == 0 {
		return lib.SQLITE_NOMEM
	}
	va := libc.NewVaList(buf, size, n)
	defer libc.Xfree(tls, va)
	return lib.Xsqlite3_config(tls, lib.SQLITE_CONFIG_PAGECACHE, va)
}
