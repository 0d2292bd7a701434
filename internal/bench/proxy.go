package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/internal/rundb"
	"github.com/stickhq/stick/procid"
)

// The scenarios through proxies run 'stick mcp --server URL' in front of
// a hub (startHub), as a harness on another host does: each proxy has a
// data directory of its own, as on a host of its own, and its token in
// its environment or in a file, the two ways it takes one.

func init() {
	reexec.Register("bench-harness", roleMain("bench-harness", harness))
}

// proxyTokenEnv is where 'stick mcp --server' takes its token from when
// it is given no --token-file.
const proxyTokenEnv = "STICK_TOKEN"

// proxyArgs returns the arguments of 'stick' that start a proxy named
// name for the hub at url with token, and the environment it needs on
// top of the scenario's: a data directory of its own (and no database
// URL: the proxy keeps no store but its claims) and, unless inFile,
// the token; with inFile the token is in a file only this user may read,
// given with --token-file.
func (e *env) proxyArgs(name, url, token string, inFile bool) (args, env []string, err error) {
	host := filepath.Join(e.dir, "host-"+name)
	args = []string{"mcp", "--server", url}
	env = []string{"TALKING_STICK_DATA_DIR=" + host, rundb.NoDatabase()}
	if !inFile {
		return args, append(env, proxyTokenEnv+"="+token), nil
	}
	file := filepath.Join(e.dir, "token-"+name)
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		return nil, nil, err
	}
	// A token in the environment of this program is not the one meant.
	return append(args, "--token-file", file), append(env, proxyTokenEnv+"="), nil
}

// dialProxy starts a proxy for the hub at url (see proxyArgs) whose
// harness is this process, and connects to it as client name.
func (e *env) dialProxy(ctx context.Context, name, url, token string, inFile bool) (*mcpSession, error) {
	args, env, err := e.proxyArgs(name, url, token, inFile)
	if err != nil {
		return nil, err
	}
	cmd, err := e.stickCommand(ctx, args...)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, env...)
	log := filepath.Join(e.dir, "stderr-"+name)
	s, err := connectLogged(ctx, name, cmd, log)
	if err != nil {
		return nil, fmt.Errorf("start 'stick mcp --server' as %s: %w", name, err)
	}
	return s, nil
}

// connectLogged is connect with the server's stderr written to the file
// log, whose end an error quotes.
func connectLogged(ctx context.Context, name string, cmd *exec.Cmd, log string) (*mcpSession, error) {
	f, err := os.Create(log)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the child has its own copy
	cmd.Stderr = f
	s, err := connect(ctx, name, cmd)
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, logNote(log))
	}
	return s, nil
}

// logNote is the end of the file log, prefixed for a message, or "".
func logNote(log string) string {
	b, _ := os.ReadFile(log)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return "; it wrote: " + s
}

// harness: args pidfile stick args. A stand-in for a coding-agent
// harness on another host: it runs 'stick args' (the stick binary named,
// or this program in its "stick" role when stick is "") on its own stdin,
// stdout and stderr, as a harness runs the MCP server it registered,
// writes the server's pid into pidfile, and waits for it. The server does
// not die with it: a proxy must see its harness exit by itself.
func harness(args []string) error {
	if len(args) < 3 {
		return fmt.Errorf("want pidfile stick args, got %q", args)
	}
	var cmd *exec.Cmd
	if args[1] != "" {
		cmd = exec.Command(args[1], args[2:]...)
	} else {
		var err error
		if cmd, err = reexec.Command(context.Background(), "stick", args[2:]...); err != nil {
			return err
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	tmp := args[0] + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(cmd.Process.Pid)), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, args[0]); err != nil {
		return err
	}
	return cmd.Wait()
}

// remoteHarness is a harness (the bench-harness role) and its proxy, and
// an MCP client of the proxy over the harness's stdio.
type remoteHarness struct {
	*mcpSession
	// proxy is the proxy's process; log the file the harness's and the
	// proxy's stderr go to.
	proxy procid.Identity
	log   string
}

// dialHarness starts a harness named name whose proxy is for the hub at
// url with token in its environment (see proxyArgs), connects to the
// proxy as client, and returns once the proxy's process is known.
func (e *env) dialHarness(ctx context.Context, name, client, url, token string) (*remoteHarness, error) {
	args, env, err := e.proxyArgs(name, url, token, false)
	if err != nil {
		return nil, err
	}
	pidfile := filepath.Join(e.dir, "proxy-"+name+".pid")
	cmd, err := reexec.Command(ctx, "bench-harness", append([]string{pidfile, e.o.Stick}, args...)...)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, env...)
	h := &remoteHarness{log: filepath.Join(e.dir, "stderr-"+name)}
	if h.mcpSession, err = connectLogged(ctx, client, cmd, h.log); err != nil {
		return nil, fmt.Errorf("start the harness %s and its proxy: %w", name, err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		b, err := os.ReadFile(pidfile)
		if err == nil {
			pid, _ := strconv.Atoi(string(b))
			if h.proxy, err = procid.Of(pid); err != nil {
				h.close()
				return nil, fmt.Errorf("the proxy of %s: %w%s", name, err, logNote(h.log))
			}
			return h, nil
		}
		if !errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			h.close()
			return nil, fmt.Errorf("the harness %s wrote no proxy pid: %w%s", name, err, logNote(h.log))
		}
		if !sleepCtx(ctx, 5*time.Millisecond) {
			h.close()
			return nil, ctx.Err()
		}
	}
}

// kill SIGKILLs the harness, not its proxy.
func (h *remoteHarness) kill() error { return h.cmd.Process.Signal(syscall.SIGKILL) }

// proxyExited waits up to d for the proxy to exit by itself, as it must
// once it has told the hub that its harness exited. It reports whether it
// did; one still running after d is killed.
func (h *remoteHarness) proxyExited(d time.Duration) bool {
	for deadline := time.Now().Add(d); procid.Check(h.proxy) != procid.Gone; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			h.killProxy()
			return false
		}
	}
	return true
}

// killProxy SIGKILLs the proxy if it still runs.
func (h *remoteHarness) killProxy() {
	if h.proxy.PID > 0 && procid.Check(h.proxy) == procid.Alive {
		_ = syscall.Kill(h.proxy.PID, syscall.SIGKILL)
	}
}

// close ends the client, the harness and, if it still runs, the proxy.
func (h *remoteHarness) close() {
	h.mcpSession.close()
	h.killProxy()
}

// sleepCtx waits d; false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
