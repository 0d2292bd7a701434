package store

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stickhq/stick/stick"
	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// TestPageCacheFromTheBuffer: the page cache buffer is configured, and a
// store's pages come from it (SQLite counts the slots in use), so emptying
// a cache returns them there instead of to the system.
func TestPageCacheFromTheBuffer(t *testing.T) {
	if pageCacheConfigured != lib.SQLITE_OK {
		t.Fatalf("SQLITE_CONFIG_PAGECACHE: result %d, want SQLITE_OK", pageCacheConfigured)
	}
	st, err := OpenDir(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for range 3 {
		if err := st.Update(context.Background(), func(tx stick.Tx) error {
			_, err := tx.RoomsUnder("", true)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	tls := libc.NewTLS()
	defer tls.Close()
	p := libc.Xmalloc(tls, 8) // SQLite writes its two counts into the driver's C memory
	defer libc.Xfree(tls, p)
	if rc := lib.Xsqlite3_status(tls, lib.SQLITE_STATUS_PAGECACHE_USED, p, p+4, 0); rc != lib.SQLITE_OK {
		t.Fatalf("sqlite3_status: %d", rc)
	}
	b := libc.GoBytes(p, 8)
	used, high := binary.NativeEndian.Uint32(b), binary.NativeEndian.Uint32(b[4:])
	if high == 0 {
		t.Errorf("page cache slots in use %d, at most %d: no page came from the buffer", used, high)
	}
}
