package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// TestWritesStopWhenTheFilesAreDeleted deletes the -wal and -shm files, or
// only one of them, under a store that has written: its next write fails
// with data_dir_unusable naming the missing file and saying to restart
// every stick process, instead of going on in files no new process sees.
func TestWritesStopWhenTheFilesAreDeleted(t *testing.T) {
	for _, gone := range [][]string{{"-wal", "-shm"}, {"-wal"}, {"-shm"}} {
		t.Run(strings.Join(gone, ","), func(t *testing.T) {
			dir, _, svc, ana, room := openSeeded(t)
			for _, suffix := range gone {
				if err := os.Remove(filepath.Join(dir, store.DBFileName+suffix)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := svc.AppendNote(t.Context(), ana, room, "into the void")
			se := stick.AsError(err)
			if err == nil || se.Code != stick.CodeDataDir || !strings.Contains(se.Message, "deleted or replaced") || !strings.Contains(se.Hint, "start them again") {
				t.Fatalf("a note after %v was deleted: %v; want data_dir_unusable saying to restart", gone, err)
			}
		})
	}
}
