package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/stickhq/stick/internal/ownerfs"
	"github.com/stickhq/stick/stick"
)

// guardianExe is the program started as a guardian: this binary (tests
// point it at the built one).
var guardianExe = os.Executable

// startGuardian starts a guardian for the invocation's identity and waits
// for its report. The guardian is detached from the terminal (Ctrl-C at
// the prompt later does not reach it) and bound to the invocation's anchor
// instead. When ctx ends before the report (Ctrl-C while waiting), the
// guardian is told through its stdin and reaped.
func startGuardian(ctx context.Context, a guardianArgs) (guardianReport, error) {
	byHarness := harnessMarker(getenv) != ""
	anc, err := anchor(byHarness)
	if err != nil {
		return guardianReport{}, stick.Errorf(stick.CodeInternal, "cannot find the shell or harness this command runs in: %v", err).
			WithHint("run it from a shell or a harness; a holder needs a live parent to belong to (not one detached with setsid or a double fork)")
	}
	a.anchorPID, a.anchorStart, a.harness = anc.PID, anc.StartedAt.UnixMilli(), byHarness
	exe, err := guardianExe()
	if err != nil {
		return guardianReport{}, stick.Errorf(stick.CodeInternal, "cannot find the stick binary: %v", err)
	}
	dir, err := localDir()
	if err != nil {
		return guardianReport{}, err
	}
	if err := ensureLocalDir(dir); err != nil {
		return guardianReport{}, err
	}
	logf, err := openLog(filepath.Join(dir, "guardian.log"))
	if err != nil {
		return guardianReport{}, stick.Errorf(stick.CodeDataDir, "cannot open the guardian log: %v", err)
	}
	defer logf.Close()
	args := []string{"guardian", "--mode", a.mode, "--path", a.path, "--as", a.agent,
		"--timeout", a.timeout.String(), "--reason", a.reason, "--turn", strconv.FormatInt(a.turn, 10),
		"--anchor-pid", strconv.Itoa(a.anchorPID), "--anchor-start", strconv.FormatInt(a.anchorStart, 10)}
	if a.harness {
		args = append(args, "--harness")
	}
	if a.chosen {
		args = append(args, "--chosen")
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), ReclaimTokenEnv+"="+a.token)
	cmd.Stderr = logf
	cmd.SysProcAttr = detached()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return guardianReport{}, stick.Errorf(stick.CodeInternal, "cannot start a holder: %v", err)
	}
	r, err := cmd.StdoutPipe() // the report
	if err != nil {
		return guardianReport{}, stick.Errorf(stick.CodeInternal, "cannot start a holder: %v", err)
	}
	if err := cmd.Start(); err != nil {
		return guardianReport{}, stick.Errorf(stick.CodeInternal, "cannot start a holder (%s): %v", exe, err)
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
	rep := guardianReport{}
	err = json.Unmarshal(line, &rep)
	rep.Anchor = fmt.Sprintf("%s (pid %d)", anc.Name, anc.PID)
	if err != nil {
		_ = cmd.Wait()
		if interrupted {
			return guardianReport{}, stick.Errorf(stick.CodeCanceled, "interrupted; stopped waiting")
		}
		return guardianReport{}, stick.Errorf(stick.CodeInternal, "the holder process ended without a report").
			WithHint("see %s", logf.Name())
	}
	if rep.granted() {
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

// harnessMarker returns the slug of the harness whose marker is set, or "".
func harnessMarker(getenv func(string) string) string {
	for _, m := range harnessMarkers {
		if getenv(m.env) != "" {
			return m.slug
		}
	}
	return ""
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
