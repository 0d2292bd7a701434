package store_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/filelock"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

func init() {
	testproc.Register(holdLockHelper, runHoldLockHelper)
}

// holdLockHelper names the helper that takes the file lock args[0],
// prints "locked" and keeps it until its standard input closes.
const holdLockHelper = "hold-lock"

func runHoldLockHelper(args []string) int {
	l, err := filelock.Open(args[0])
	if err == nil {
		err = l.Lock()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("locked")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

// holdWriterLock starts a process that holds the writer lock of the
// database in dir until the test ends.
func holdWriterLock(t *testing.T, dir string) *testproc.Proc {
	t.Helper()
	p := testproc.Start(t, holdLockHelper, filepath.Join(dir, store.DBFileName+"-lock"))
	if line, err := p.ReadLine(10 * time.Second); err != nil || line != "locked" {
		t.Fatalf("lock holder: %q %v\n%s", line, err, p.Stderr())
	}
	return p
}

// TestReadsNeverWaitForTheWriterLock opens a store and reads through it
// while another process holds the writer lock (as a stopped or slow writer
// does): the open and the reads succeed at once, and only a write waits,
// and fails with db_busy.
func TestReadsNeverWaitForTheWriterLock(t *testing.T) {
	dir, st, _, ana, room := openSeeded(t)
	st.Close()
	holder := holdWriterLock(t, dir)

	start := time.Now()
	st2, err := store.OpenDir(dir, store.Options{BusyTimeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("open while another process holds the writer lock: %v", err)
	}
	// The holder lets go before the store closes: Close waits for the
	// write that gave up on the lock.
	defer st2.Close()
	defer holder.Stdin().Close()
	notes, err := readNotes(st2)
	if err != nil || !slices.Equal(notes, seededNotes) {
		t.Fatalf("read while another process holds the writer lock: %q %v", notes, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the open and the read took %v: they waited for the writer lock", d)
	}
	svc, err := stick.New(st2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AppendNote(t.Context(), ana, room, "blocked"); stick.ErrorCode(err) != stick.CodeDBBusy {
		t.Fatalf("a write while the writer lock is held: %v, want db_busy", err)
	}
}
