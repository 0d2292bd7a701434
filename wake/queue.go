package wake

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxOutput bounds what is kept of codex's standard output and error, in
// bytes; the rest is read and dropped, so codex never blocks on a full
// pipe.
const maxOutput = 4 << 10

// waitDelay bounds the wait for codex's output pipes after it was stopped,
// in case something it started still holds them.
const waitDelay = 500 * time.Millisecond

// queue delivers text to a Codex thread by running
// `<codex> queue --thread <thread> --message <text>` with no input, within
// ctx, in this process's environment without the Claude Code inbox token
// (see codexEnv). Exit status 0 is Queued. Any other exit status, or a codex that
// cannot be started, is Failed, with the first line codex wrote to its
// standard error. A codex stopped at the deadline, with its process group,
// or killed by a signal, is Ambiguous: it may have queued the text first.
func queue(ctx context.Context, thread, text string, o Options) Delivery {
	result := func(s State, msg string) Delivery {
		return Delivery{Transport: CodexQueue, State: s, Detail: detail(msg, text)}
	}
	switch {
	case thread == "":
		return result(Failed, "no Codex thread id")
	case strings.HasPrefix(thread, "-"):
		return result(Failed, "the Codex thread id starts with a dash")
	}

	cmd := exec.CommandContext(ctx, o.Codex, "queue", "--thread", thread, "--message", text)
	cmd.Env = codexEnv()
	var stdout, stderr prefix
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ownGroup(cmd)
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return result(Failed, startProblem(ctx, err, o))
	}
	err := cmd.Wait()
	state := cmd.ProcessState
	switch {
	case state != nil && state.Exited() && state.ExitCode() == 0:
		if line := firstLine(stdout.String()); line != "" {
			return result(Queued, "codex: "+line)
		}
		return result(Queued, "codex queued the message")
	case state != nil && state.Exited():
		msg := "codex exited with status " + strconv.Itoa(state.ExitCode())
		if line := firstLine(stderr.String()); line != "" {
			msg += ": " + line
		}
		return result(Failed, msg)
	case ctx.Err() != nil:
		return result(Ambiguous, "codex was stopped: "+problem(ctx, err, o.Timeout)+"; it may have queued the message")
	}
	return result(Ambiguous, "codex ended abnormally ("+err.Error()+"); it may have queued the message")
}

// codexEnv is the environment codex runs in: this process's, without
// CLAUDE_CODE_MESSAGING_TOKEN. The inbox token is a secret of the process
// that wakes and no business of codex's, which would hand it on to
// everything it runs.
func codexEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, envClaudeToken+"=") })
}

// startProblem says why codex could not be started.
func startProblem(ctx context.Context, err error, o Options) string {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return o.Codex + " not found on PATH"
	case errors.Is(err, fs.ErrNotExist):
		return o.Codex + " not found"
	case ctx.Err() != nil:
		return "codex was not started: " + problem(ctx, err, o.Timeout)
	}
	return "cannot run " + o.Codex + ": " + err.Error()
}

// firstLine is the first line of s with anything in it.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = clean(line); line != "" {
			return line
		}
	}
	return ""
}

// prefix keeps the first maxOutput bytes written to it and drops the rest.
type prefix struct{ b []byte }

// Write keeps what fits and reports everything written, so the writer
// never sees an error.
func (p *prefix) Write(b []byte) (int, error) {
	if room := maxOutput - len(p.b); room > 0 {
		p.b = append(p.b, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

// String returns what was kept.
func (p *prefix) String() string { return string(p.b) }
