package holder

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/stickhq/stick/internal/ownerfs"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// Spawn says how to start a guardian.
type Spawn struct {
	// Command runs a guardian: a program and its arguments (stick's
	// hidden guardian command, with the flags of a [Request]).
	Command []string
	// Env is added to the guardian's environment: what must not show on a
	// command line, such as a reclaim token.
	Env []string
	// Anchor is the shell or harness the guardian belongs to, which the
	// report names.
	Anchor procid.Ancestor
}

// Start starts a guardian and waits for its report. The guardian is
// detached from the terminal (Ctrl-C at the prompt later does not reach it)
// and bound to its anchor instead; its stderr goes to guardian.log in
// [Dir]. When ctx ends before the report (Ctrl-C while waiting), the
// guardian is told through its stdin and reaped. A guardian that got the
// stick runs on; one that did not is reaped, and its error returned.
func Start(ctx context.Context, s Spawn) (Report, error) {
	dir, err := Dir()
	if err != nil {
		return Report{}, err
	}
	if err := ensureDir(dir); err != nil {
		return Report{}, err
	}
	logf, err := openLog(filepath.Join(dir, "guardian.log"))
	if err != nil {
		return Report{}, stick.Errorf(stick.CodeDataDir, "cannot open the guardian log: %v", err)
	}
	defer logf.Close()
	cmd := exec.Command(s.Command[0], s.Command[1:]...)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stderr = logf
	cmd.SysProcAttr = detached()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Report{}, stick.Errorf(stick.CodeInternal, "cannot start a holder: %v", err)
	}
	r, err := cmd.StdoutPipe() // the report
	if err != nil {
		return Report{}, stick.Errorf(stick.CodeInternal, "cannot start a holder: %v", err)
	}
	if err := cmd.Start(); err != nil {
		return Report{}, stick.Errorf(stick.CodeInternal, "cannot start a holder (%s): %v", s.Command[0], err)
	}
	lines := make(chan []byte, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadBytes('\n')
		lines <- line
	}()
	var line []byte
	interrupted := false
	select {
	case line = <-lines:
	case <-ctx.Done():
		stdin.Close() // the guardian gives up, unless the stick just came
		line, interrupted = <-lines, true
	}
	rep := Report{}
	err = json.Unmarshal(line, &rep)
	rep.Anchor = fmt.Sprintf("%s (pid %d)", s.Anchor.Name, s.Anchor.PID)
	if err != nil {
		_ = cmd.Wait()
		if interrupted {
			return Report{}, stick.Errorf(stick.CodeCanceled, "interrupted; stopped waiting")
		}
		return Report{}, stick.Errorf(stick.CodeInternal, "the holder process ended without a report").
			WithHint("see %s", logf.Name())
	}
	if rep.Granted() {
		go func() { _ = cmd.Wait() }() // reaped if this process lives on (tests); the guardian outlives a CLI run
		return rep, nil
	}
	stdin.Close()
	_ = cmd.Wait()
	if rep.Error != nil {
		return rep, rep.Error
	}
	return rep, nil
}

// maxLog bounds the guardian log: a log that grew past it is started afresh.
const maxLog = 1 << 20

// openLog opens the guardian log for appending, truncating it first when
// it grew past maxLog.
func openLog(path string) (*os.File, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLog {
		flags |= os.O_TRUNC
	}
	return ownerfs.OpenFile(path, flags, 0o600)
}
