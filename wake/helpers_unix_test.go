//go:build unix

package wake_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stickhq/stick/wake"
)

// slack is how much longer than its Timeout an attempt may take on a busy
// machine before a test calls it a hang.
const slack = 3 * time.Second

// shortDir returns a fresh directory with a short path: a Unix socket's
// path must fit in about 100 bytes, which t.TempDir's may not.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wake")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// fakeInbox listens on a Unix socket and hands the one connection it
// accepts to handle, closing it afterwards; it returns the socket's path.
// The test ends only after handle returned.
func fakeInbox(t *testing.T, handle func(conn *net.UnixConn)) string {
	t.Helper()
	path := filepath.Join(shortDir(t), "inbox.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := ln.AcceptUnix()
		if err != nil {
			return
		}
		defer conn.Close()
		handle(conn)
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	return path
}

// script writes an executable shell script named name into dir and
// returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// assertSafe fails the test when the token or the text sent shows in any
// rendering of the deliveries, or a detail holds a control character.
func assertSafe(t *testing.T, ds []wake.Delivery, text string) {
	t.Helper()
	b, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b) + fmt.Sprintf(" %v %+v %#v", ds, ds, ds)
	if strings.Contains(out, secretToken) {
		t.Errorf("the token shows in the deliveries: %s", out)
	}
	for _, d := range ds {
		if text != "" && strings.Contains(d.Detail, text) {
			t.Errorf("the text sent shows in the detail %q", d.Detail)
		}
		if len(d.Detail) > 200 {
			t.Errorf("detail of %d bytes: %q", len(d.Detail), d.Detail)
		}
		if strings.ContainsFunc(d.Detail, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Errorf("detail holds a control character: %q", d.Detail)
		}
	}
}

// states lists the deliveries' states, for comparing.
func states(ds []wake.Delivery) string {
	var s []string
	for _, d := range ds {
		s = append(s, string(d.Transport)+":"+string(d.State))
	}
	return strings.Join(s, " ")
}

// readPid reads the pid a script wrote into path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the script did not record its pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

// gone reports whether process pid no longer runs: it does not exist, or
// (on Linux) it is a zombie left for its new parent to reap.
func gone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	if runtime.GOOS == "linux" {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i:]), ") Z") {
			return true
		}
	}
	return false
}

// waitGone waits, up to slack, for process pid to be gone: an orphan is
// reaped by its new parent on that parent's schedule.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(slack); !gone(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
