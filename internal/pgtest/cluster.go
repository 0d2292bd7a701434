package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"time"
)

// The environment variables pgtest reads.
const (
	// URLEnv names an existing server's database to create the tests'
	// databases beside, instead of a throwaway cluster; its user needs the
	// CREATEDB privilege.
	URLEnv = "STICK_TEST_DATABASE_URL"
	// RequireEnv, set to 1, makes a missing PostgreSQL fail the tests
	// instead of skipping them; so does CI being set.
	RequireEnv = "STICK_REQUIRE_POSTGRES"
)

// installHint says how to get PostgreSQL's server programs.
const installHint = "install PostgreSQL's server (Debian, Ubuntu: apt-get install postgresql; macOS: brew install postgresql), " +
	"or set " + URLEnv + " to a database URL of a server whose user may create databases"

// cluster is a throwaway PostgreSQL cluster: its data directory and the
// directory of its socket, under one temporary directory.
type cluster struct {
	dir, data, sock string
	bin             string // the directory of initdb, pg_ctl and postgres
	asUser          []string
}

// findBin returns the directory holding initdb and pg_ctl: the one of
// initdb on PATH, else Debian's newest /usr/lib/postgresql/*/bin.
func findBin() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("PostgreSQL's initdb and pg_ctl were not found on PATH nor in /usr/lib/postgresql/*/bin")
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// startCluster makes and starts a cluster under a new temporary
// directory. Run as root, the cluster runs as the postgres system user
// (initdb refuses root), which then owns the directory.
func startCluster() (*cluster, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "stick-pg-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, data: filepath.Join(dir, "data"), sock: filepath.Join(dir, "sock"), bin: bin}
	if err := os.Mkdir(c.sock, 0o700); err != nil {
		c.remove()
		return nil, err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			c.remove()
			return nil, fmt.Errorf("running as root, PostgreSQL needs an unprivileged user to run as, and there is no user postgres: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{dir, c.sock} {
			if err := os.Chown(p, uid, gid); err != nil {
				c.remove()
				return nil, err
			}
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	if err := c.run("initdb", "-D", c.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		c.remove()
		return nil, err
	}
	opts := "-c listen_addresses='' -k " + c.sock + " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
	if err := c.run("pg_ctl", "start", "-w", "-t", "60", "-D", c.data, "-l", filepath.Join(dir, "log"), "-o", opts); err != nil {
		c.remove()
		return nil, err
	}
	return c, nil
}

// run runs one of the cluster's programs as its user.
func (c *cluster) run(prog string, args ...string) error {
	argv := append(append(append([]string{}, c.asUser...), filepath.Join(c.bin, prog)), args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s", prog, err, out.Bytes())
	}
	return nil
}

// url is the address of one of the cluster's databases, over its socket.
func (c *cluster) url(db string) string {
	return "postgres://postgres@/" + db + "?host=" + c.sock + "&sslmode=disable"
}

// stop stops the cluster at once (the data is thrown away) and removes
// its directory.
func (c *cluster) stop() {
	_ = c.run("pg_ctl", "stop", "-D", c.data, "-m", "immediate", "-w")
	c.remove()
}

func (c *cluster) remove() { _ = os.RemoveAll(c.dir) }
