package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	skill "github.com/stickhq/stick"
	"github.com/stickhq/stick/cli/harness"
	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/internal/filelock"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// Outcomes of one doctor check, as --json shows them.
const (
	// checkOK: fine, nothing to do.
	checkOK = "ok"
	// checkWarn: works, but something deserves attention (a room waiting
	// for a takeover, abandoned rooms, an outdated skill); the fix says what.
	checkWarn = "warn"
	// checkFail: stick cannot work as it should until the fix is applied;
	// doctor exits 1.
	checkFail = "fail"
	// checkSkip: the check does not apply here (a harness not installed).
	checkSkip = "skip"
)

// check is one line of 'stick doctor': what was looked at, how it is, and
// what to do when it needs a fix.
type check struct {
	Name    string `json:"check"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

func newDoctor() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the data directory, the database, the harness registrations and the holders",
		Long: `Check everything stick depends on and say, line by line, whether it is fine or
what to run to fix it: the data directory and its filesystem, the database's
schema and integrity (with --database or $STICK_DATABASE_URL: the PostgreSQL
server, its schema, the stick processes connected and a write holding the
lock too long), rooms whose holder failed, the holder processes of this
machine, stick on PATH, and which harnesses have stick registered (and its
skill installed). It changes nothing, except that it drops the records of
holder processes that are gone.

Each check is ok, warn (works, but deserves attention: a room waiting for a
takeover, abandoned rooms, an outdated skill), fail (needs the fix shown) or
skip (does not apply here, such as a harness that is not installed). Exit
status 1 when a check fails; warnings do not change it.`,
		Example: "  stick doctor\n  stick doctor --json | jq '.[] | select(.status != \"ok\")'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks := diagnose(cmd.Context())
			p := newPrinter(cmd.OutOrStdout(), asJSON)
			if asJSON {
				if err := p.JSON(checks); err != nil {
					return err
				}
			} else {
				for _, c := range checks {
					status := fmt.Sprintf("%-4s", c.Status)
					switch c.Status {
					case checkOK:
						status = p.green(status)
					case checkWarn:
						status = p.Warn(status)
					case checkFail:
						status = p.red(status)
					case checkSkip:
						status = p.Dim(status)
					}
					fmt.Fprintf(p.w, "%s  %-12s %s\n", status, c.Name, render.Line(c.Message))
					if c.Fix != "" {
						fmt.Fprintf(p.w, "      %-12s → %s\n", "", render.Line(c.Fix))
					}
				}
			}
			for _, c := range checks {
				if c.Status == checkFail {
					return exitCode(1)
				}
			}
			return nil
		},
	}
	addJSON(cmd, &asJSON)
	return cmd
}

// diagnose runs every check, in the order a person would fix things.
func diagnose(ctx context.Context) []check {
	var out []check
	add := func(name, status, msg, fix string) { out = append(out, check{name, status, msg, fix}) }

	dir, err := store.DataDir()
	if err != nil {
		add("data dir", checkFail, err.Error(), "set "+store.DataDirEnv+" to a local directory")
		return out
	}
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		add("data dir", checkOK, dir+" does not exist yet; the first command that writes creates it", "")
	case err != nil:
		add("data dir", checkFail, err.Error(), "make it readable, or set "+store.DataDirEnv+" to another directory")
	case !fi.IsDir():
		add("data dir", checkFail, dir+" is not a directory", "move it aside, or set "+store.DataDirEnv+" to a directory")
	default:
		if err := store.CheckLocalFS(dir); err != nil {
			add("data dir", checkFail, err.Error(), "set "+store.DataDirEnv+" to a directory on a local disk")
		} else if err := privateDirs(dir); err != nil {
			add("data dir", checkFail, strings.TrimPrefix(err.Error(), store.ErrDataDir.Error()+": "), store.PrivateHint(dir))
		} else if err := writable(dir); err != nil {
			add("data dir", checkFail, dir+" is not writable: "+err.Error(), "make it writable, or set "+store.DataDirEnv+" to another directory")
		} else {
			add("data dir", checkOK, dir+" (local filesystem, writable)", "")
		}
	}
	if db := wiring().Database; db != "" {
		out = append(out, postgresChecks(ctx, db)...)
	} else {
		out = append(out, databaseChecks(ctx, dir)...)
		out = append(out, watchCheck(store.CheckWatch()))
	}
	out = append(out, holderChecks()...)
	out = append(out, harnessChecks(ctx)...)
	return out
}

// privateDirs checks the data directory and the directories stick keeps
// in it: each must be the user's own and writable by nobody else, and none
// a link, or stick refuses to use it.
func privateDirs(dir string) error {
	if err := store.CheckPrivateDir(dir); err != nil {
		return err
	}
	for _, sub := range []string{"cli", "instances", "members", store.DBFileName + "-bells"} {
		p := filepath.Join(dir, sub)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link, which stick refuses in its data directory", p)
		}
		if err == nil {
			err = store.CheckPrivateDir(p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// databaseChecks checks the schema and integrity of the database and the
// rooms whose holder failed.
func databaseChecks(ctx context.Context, dir string) []check {
	r, err := store.OpenReader(dir)
	if errors.Is(err, store.ErrNoDatabase) {
		return []check{{"database", checkOK, "no database yet; the first 'stick join' (or agent) creates it", ""}}
	}
	if err != nil {
		return []check{failedCheck("database", err)}
	}
	defer r.Close()
	var out []check
	problems, err := r.Integrity(ctx)
	switch {
	case err != nil:
		return []check{failedCheck("database", err)}
	case len(problems) == 0:
		return []check{{"database", checkFail, r.Path() + ": the integrity check gave no answer", "run 'stick doctor' again; if it persists, copy the file aside and check it with sqlite3"}}
	case len(problems) != 1 || problems[0] != "ok":
		out = append(out, check{"database", checkFail, fmt.Sprintf("%s: integrity check found %d problem(s), the first: %s", r.Path(), len(problems), problems[0]),
			"stop every agent, move " + r.Path() + " aside (keep it: it may be recoverable with sqlite3 .recover) and run again"})
	default:
		out = append(out, check{"database", checkOK, fmt.Sprintf("%s: schema %d, integrity ok", r.Path(), store.SchemaVersion), ""})
	}
	out = append(out, searchCheck(ctx, r))
	if c, ok := writerLockCheck(ctx, r.Path()+"-lock"); ok {
		out = append(out, c)
	}
	if pids := deletedDBUsers(r.Path()); len(pids) > 0 {
		out = append(out, check{"database", checkFail, fmt.Sprintf("processes %v still write to a deleted %s, -wal or -shm: what they write is lost to every new process", pids, r.Path()),
			"stop those stick processes (agents' 'stick mcp' servers, holders) and start them again; do not delete the -wal and -shm files of a database in use"})
	}
	return append(out, roomChecks(ctx, r)...)
}

// roomChecks checks the rooms of st: those whose holder failed (an open
// takeover) and those abandoned.
func roomChecks(ctx context.Context, st stick.Store) []check {
	var out []check
	svc, err := newService(st)
	if err != nil {
		return append(out, failedCheck("rooms", err))
	}
	rooms, err := svc.ListRooms(ctx, "")
	if err != nil {
		return append(out, failedCheck("rooms", err))
	}
	abandoned, err := svc.AbandonedRooms(ctx, 0)
	if err != nil {
		return append(out, failedCheck("rooms", err))
	}
	isAbandoned := make(map[string]bool, len(abandoned))
	for _, a := range abandoned {
		isAbandoned[a.RoomID] = true
	}
	open := 0
	for _, rm := range rooms {
		if rm.State == stick.StateClosed {
			continue
		}
		open++
		if isAbandoned[rm.RoomID] {
			continue // said once below, with the way to clean them up
		}
		st, err := svc.RoomState(ctx, rm.RoomID) // derived states probe the holder's process
		if err != nil {
			out = append(out, failedCheck("room", err))
			continue
		}
		if st.Takeover != "" { // only an open takeover needs someone to act
			who := st.Owner + st.ReservedFor
			how := fmt.Sprintf("an active member takes over: stick takeover %s --reason \"%s: %s\"", st.CanonicalPath, who, strings.ReplaceAll(string(st.Takeover), "_", " "))
			if st.RoomName != "" {
				how = fmt.Sprintf("an active member takes over with takeover_stick (room_id %s, expected_turn_id %d)", st.RoomID, st.TurnID)
			}
			out = append(out, check{"room", checkWarn, fmt.Sprintf("%s: %s, takeover open (turn %d, %s)", pathCell(st.CanonicalPath, st.RoomName), st.Takeover, st.TurnID, who), how})
		}
	}
	out = append(out, check{"rooms", checkOK, fmt.Sprintf("%d open, %d closed", open, len(rooms)-open), ""})
	if len(abandoned) > 0 {
		paths := make([]string, 0, 3)
		for _, a := range abandoned[:min(3, len(abandoned))] {
			paths = append(paths, pathCell(a.CanonicalPath, a.RoomName))
		}
		if len(abandoned) > 3 {
			paths = append(paths, "...")
		}
		out = append(out, check{"rooms", checkWarn, fmt.Sprintf("%d abandoned (nobody can act in them; their path is gone or nobody called for %d days): %s",
			len(abandoned), stick.DefaultAbandonAfter/(24*time.Hour), strings.Join(paths, ", ")),
			"'stick rooms prune' lists them; 'stick rooms prune --yes' closes them, keeping their logs and documents"})
	}
	return out
}

// searchCheck reports the full-text search index: ready (and how far the
// log is indexed), being built, or stale.
func searchCheck(ctx context.Context, r *store.Reader) check {
	ix, err := r.SearchIndex(ctx)
	switch {
	case err != nil:
		return failedCheck("search", err)
	case ix.State == "stale":
		return check{"search", checkWarn, "the index is out of date: a stick without full-text search (FTS5) wrote the database",
			"run any command of this stick that writes, such as 'stick join': it rebuilds the index"}
	case ix.State != "ready":
		return check{"search", checkOK, "no index yet; the next command that writes makes it", ""}
	case ix.Last > ix.Indexed:
		return check{"search", checkOK, fmt.Sprintf("index ready; %d of %d events indexed, the rest at the next search", ix.Indexed, ix.Last), ""}
	}
	return check{"search", checkOK, fmt.Sprintf("index ready, all %d events indexed", ix.Last), ""}
}

// holderChecks checks the holder processes this machine recorded, and drops
// the records of those that are gone.
func holderChecks() []check {
	dir, err := holder.Dir()
	if err != nil {
		return []check{failedCheck("holders", err)}
	}
	hs, err := holder.Read(dir)
	if err != nil { // damaged: rewrite it, keeping nothing a dead guardian left
		if uerr := holder.Prune(dir); uerr != nil {
			return []check{failedCheck("holders", uerr)}
		}
		return []check{{"holders", checkOK, "rewrote the damaged holder records (" + stick.AsError(err).Message + ")", ""}}
	}
	var out []check
	gone := 0
	for _, h := range hs {
		switch procid.Check(h.Guardian) {
		case procid.Gone:
			gone++
		case procid.Alive:
			what := "waits for the stick"
			if h.State == holder.Holding {
				what = fmt.Sprintf("holds turn %d", h.Lease.TurnID)
			}
			out = append(out, check{"holder", checkOK, fmt.Sprintf("pid %d %s in %s for %s", h.Guardian.PID, what, h.Where(), h.AgentID), ""})
		default:
			release := "'stick release' in " + h.Path
			if h.Name != "" {
				release = "'stick release --room " + shellQuote(h.Name) + "'"
			}
			out = append(out, check{"holder", checkWarn, fmt.Sprintf("pid %d for %s in %s: cannot tell whether it runs", h.Guardian.PID, h.AgentID, h.Where()),
				"if that process is not a stick holder, " + release + " drops the record"})
		}
	}
	if gone > 0 {
		if err := holder.Prune(dir); err != nil {
			return append(out, failedCheck("holders", err))
		}
		out = append(out, check{"holders", checkOK, fmt.Sprintf("dropped %d record(s) of holder processes that are gone", gone), ""})
	}
	if len(out) == 0 {
		out = append(out, check{"holders", checkOK, "no holder processes on this machine", ""})
	}
	return out
}

// harnessChecks checks stick on PATH and, for each harness installed here,
// whether stick is registered and its skill installed.
func harnessChecks(ctx context.Context) []check {
	var out []check
	command, err := stickCommand("")
	if err != nil {
		out = append(out, check{"stick", checkFail, stick.AsError(err).Message, stick.AsError(err).Hint})
		if command, err = executable(); err != nil {
			return out
		}
	} else {
		msg := command
		if onPath, err := exec.LookPath("stick"); err != nil || onPath != command {
			msg += " (not the 'stick' on PATH; harnesses are given this path)"
		}
		out = append(out, check{"stick", checkOK, msg, ""})
	}
	for _, h := range harness.All() {
		res := h.Install(ctx, harness.Options{Command: command, DryRun: true})
		if res.Status == harness.StatusWouldReplace {
			// Registered with the core tools ('stick install --tools core') is registered too.
			core := h.Install(ctx, harness.Options{Command: command, Tools: string(mcpserver.CoreTools), DryRun: true})
			if core.Status == harness.StatusAlreadyInstalled {
				res = core
			}
		}
		switch res.Status {
		case harness.StatusSkipped:
			out = append(out, check{h.Name, checkSkip, "not installed", ""})
			continue
		case harness.StatusAlreadyInstalled:
			out = append(out, check{h.Name, checkOK, "stick mcp registered: " + res.Detail, ""})
		case harness.StatusWouldReplace:
			out = append(out, check{h.Name, checkFail, "registered with another command: " + res.Previous, "stick install " + h.Name})
		case harness.StatusWouldInstall:
			out = append(out, check{h.Name, checkFail, "stick mcp is not registered", "stick install " + h.Name})
		default:
			fix := res.Fix
			if fix == "" {
				fix = "run 'stick install " + h.Name + " --dry-run' to see why"
			}
			out = append(out, check{h.Name, checkFail, "cannot tell whether stick is registered: " + res.Error, fix})
		}
		sk := h.InstallSkill(skill.Markdown, true)
		switch sk.Status {
		case harness.StatusAlreadyInstalled:
			out = append(out, check{h.Name, checkOK, "skill installed: " + sk.Path, ""})
		case harness.StatusWouldInstall:
			out = append(out, check{h.Name, checkWarn, "the stick skill is not installed", "stick install-skill " + h.Name})
		case harness.StatusWouldReplace:
			out = append(out, check{h.Name, checkWarn, "the stick skill is outdated: " + sk.Path, "stick install-skill " + h.Name})
		case harness.StatusUnsupported:
		default:
			out = append(out, check{h.Name, checkFail, "cannot check the skill: " + sk.Error, "stick install-skill " + h.Name + " --dry-run"})
		}
	}
	return out
}

func failedCheck(name string, err error) check {
	se := stick.AsError(err)
	return check{name, checkFail, fmt.Sprintf("%s: %s", se.Code, se.Message), se.Hint}
}

// writerLockWait is how long doctor waits for the database's writer lock
// before it reports who holds it: a write holds it for milliseconds.
const writerLockWait = time.Second

// writerLockCheck warns when a process has held the database's writer lock
// (path) for writerLockWait, naming it when the system can tell, since
// every write waits for it. It takes the lock for no longer than a try.
func writerLockCheck(ctx context.Context, path string) (check, bool) {
	if _, err := os.Stat(path); err != nil {
		return check{}, false
	}
	l, err := filelock.Open(path)
	if err != nil {
		return check{}, false
	}
	defer l.Close()
	err = l.LockWithin(ctx, writerLockWait)
	if err == nil {
		l.Unlock()
		return check{}, false
	}
	if !errors.Is(err, filelock.ErrTimeout) {
		return check{}, false
	}
	by, fix := "a process", "find the stick process that is stopped or stuck (for example with 'lsof "+path+"') and end it"
	if pid := filelock.Holder(path); pid > 0 {
		by, fix = fmt.Sprintf("process %d", pid), fmt.Sprintf("if process %d is stopped or stuck, end it (kill %d); every write waits for it", pid, pid)
	}
	return check{"writer lock", checkWarn, fmt.Sprintf("%s has held the write lock %s for more than %s: writes wait, then fail with db_busy", by, path, render.Duration(writerLockWait)), fix}, true
}
