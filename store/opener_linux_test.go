package store_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

func init() {
	testproc.Register(holdOpenHelper, runHoldOpenHelper)
}

// holdOpenHelper names the helper that opens the store in the directory
// args[0], prints "open" and keeps it open until its standard input closes,
// as a running 'stick mcp' server does.
const holdOpenHelper = "hold-open"

func runHoldOpenHelper(args []string) int {
	st, err := store.OpenDir(args[0], store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	fmt.Println("open")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

// TestOpenRefusesFilesDeletedUnderOthers deletes the -wal and -shm files
// while another process has the database open: a new store refuses to open
// with data_dir_unusable naming that process, instead of showing the
// database without that process's writes and writing a second history
// beside it; once that process has exited, the store opens, with every
// note.
func TestOpenRefusesFilesDeletedUnderOthers(t *testing.T) {
	dir, st, _, _, _ := openSeeded(t)
	p := testproc.Start(t, holdOpenHelper, dir)
	if line, err := p.ReadLine(10 * time.Second); err != nil || line != "open" {
		t.Fatalf("store holder: %q %v\n%s", line, err, p.Stderr())
	}
	st.Close()
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(filepath.Join(dir, store.DBFileName+suffix)); err != nil {
			t.Fatal(err)
		}
	}
	st2, err := store.OpenDir(dir, store.Options{})
	if err == nil {
		st2.Close()
	}
	se := stick.AsError(err)
	if err == nil || se.Code != stick.CodeDataDir || !strings.Contains(se.Message, fmt.Sprint(p.PID())) || !strings.Contains(se.Hint, "start them again") {
		t.Fatalf("open after -wal and -shm were deleted under process %d: %v; want data_dir_unusable naming it and saying to restart", p.PID(), err)
	}

	p.Stdin().Close()
	if code, err := p.Wait(); code != 0 || err != nil {
		t.Fatalf("store holder exited %d: %v\n%s", code, err, p.Stderr())
	}
	st3, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatalf("open after the last process exited: %v", err)
	}
	defer st3.Close()
	if notes, err := readNotes(st3); err != nil || len(notes) != len(seededNotes) {
		t.Fatalf("notes after the last process exited: %q %v; want %q", notes, err, seededNotes)
	}
}
