package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/internal/filelock"
	"github.com/stickhq/stick/internal/testproc"
)

func init() {
	testproc.Register("hold-lock", holdLockHelper)
}

// holdLockHelper takes the file lock args[0], prints "locked" and keeps it
// until its standard input closes, as a stuck or stopped stick would.
func holdLockHelper(args []string) int {
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

// TestHolderRecordsLockHasADeadline holds cli/holders.lock in another
// process: 'stick try' gives up after the lock's deadline with db_busy
// naming that process instead of hanging as long as it holds the lock, and
// a waiting 'stick wait' ends at once on SIGTERM.
func TestHolderRecordsLockHasADeadline(t *testing.T) {
	repo, data := holderRepo(t)
	mustRun(t, repo, "join")
	if err := os.MkdirAll(filepath.Join(data, "cli"), 0o700); err != nil {
		t.Fatal(err)
	}
	locker := testproc.Start(t, "hold-lock", filepath.Join(data, "cli", "holders.lock"))
	if line, err := locker.ReadLine(safety); err != nil || line != "locked" {
		t.Fatalf("lock holder: %q %v\n%s", line, err, locker.Stderr())
	}

	start := time.Now()
	r := runBin(t, repo, nil, "try")
	if r.code != 1 || !strings.Contains(r.stderr, "db_busy") || !strings.Contains(r.stderr, "holders.lock") {
		t.Fatalf("try while another process holds the holder records' lock: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if runtime.GOOS == "linux" && !strings.Contains(r.stderr, "process "+strconv.Itoa(locker.PID())) {
		t.Errorf("the error does not name the process holding the lock (%d):\n%s", locker.PID(), r.stderr)
	}
	if d := time.Since(start); d > 4*holder.LockWait {
		t.Errorf("try gave up after %v", d)
	}

	w := startBin(t, repo, "wait")
	time.Sleep(time.Second) // into the holder process's wait for the lock
	w.signal(t, syscall.SIGTERM)
	signalled := time.Now()
	if code := w.wait(t); code != 143 {
		t.Errorf("wait ended by SIGTERM: exit %d, stderr %q", code, w.stderr.String())
	}
	if d := time.Since(signalled); d > holder.LockWait/2 {
		t.Errorf("wait ended %v after SIGTERM: it waited for the lock", d)
	}
}

// TestDoctorNamesTheWriterLockHolder holds the database's writer lock in
// another process: 'stick doctor' warns that writes wait for it and names
// that process.
func TestDoctorNamesTheWriterLockHolder(t *testing.T) {
	repo, data := holderRepo(t)
	mustRun(t, repo, "join")
	locker := testproc.Start(t, "hold-lock", filepath.Join(data, "rooms.sqlite-lock"))
	if line, err := locker.ReadLine(safety); err != nil || line != "locked" {
		t.Fatalf("lock holder: %q %v\n%s", line, err, locker.Stderr())
	}
	r := runBin(t, repo, nil, "doctor")
	if !strings.Contains(r.stdout, "writer lock") || !strings.Contains(r.stdout, "process "+strconv.Itoa(locker.PID())) {
		t.Fatalf("doctor while process %d holds the writer lock: exit %d\n%s%s", locker.PID(), r.code, r.stdout, r.stderr)
	}
}

// TestDoctorSeesDeletedDatabaseFiles deletes the -wal and -shm files under
// a running 'stick mcp' server, which has the database open (its first
// tool call waits for the open) but neither writes nor waits (a waiter
// would notice and exit): doctor fails, naming that process.
func TestDoctorSeesDeletedDatabaseFiles(t *testing.T) {
	repo, data := holderRepo(t)
	mustRun(t, repo, "join")
	f := startBin(t, repo, "mcp")
	if _, err := io.WriteString(f.stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_rooms","arguments":{}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	f.readUntil(t, `"id":2`)
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(filepath.Join(data, "rooms.sqlite"+suffix)); err != nil {
			t.Fatal(err)
		}
	}
	r := runBin(t, repo, nil, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "deleted") || !strings.Contains(r.stdout, strconv.Itoa(f.cmd.Process.Pid)) {
		t.Fatalf("doctor after the -wal and -shm were deleted under pid %d: exit %d\n%s%s", f.cmd.Process.Pid, r.code, r.stdout, r.stderr)
	}
}
