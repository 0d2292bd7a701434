//go:build unix || windows

package filelock

import (
	"path/filepath"
	"testing"
)

func TestLockExcludesOtherHolders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x-lock")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.Lock(); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(); ok || err != nil {
		t.Fatalf("TryLock while held = %v, %v; want false, nil", ok, err)
	}
	a.Unlock()
	if ok, err := b.TryLock(); !ok || err != nil {
		t.Fatalf("TryLock after Unlock = %v, %v; want true, nil", ok, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.TryLock(); !ok || err != nil {
		t.Fatalf("TryLock after the holder closed = %v, %v; want true, nil", ok, err)
	}
}
