package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/stickhq/stick/internal/ownerfs"
)

// DataDirEnv names the environment variable that overrides the data
// directory, so users can move the shared database (for example off a
// network home directory) without changing code.
const DataDirEnv = "TALKING_STICK_DATA_DIR"

// DBFileName is the name of the database file inside the data directory;
// every process on the host opens this one file so they share state.
const DBFileName = "rooms.sqlite"

// appDirName is the directory created under the platform's data root.
const appDirName = "talking-stick"

// ErrDataDir is wrapped by errors about a data directory that cannot be
// resolved, created or written, so callers can tell a misconfigured location
// apart from a database failure.
var ErrDataDir = errors.New("data directory unusable")

// ErrDataDirUnsafe is wrapped by errors about a data directory that
// another user owns or that its group or others may write in: whoever can
// write in it can read what stick keeps there or plant links that make
// stick overwrite the user's files. It also wraps ErrDataDir.
var ErrDataDirUnsafe = errors.New("data directory not private")

// ErrUnsupportedFilesystem is wrapped when the data directory is on a network
// or FUSE filesystem where SQLite locking is unreliable; sharing the database
// there could corrupt it or let two agents hold the stick at once.
var ErrUnsupportedFilesystem = errors.New("unsupported filesystem")

// DataDir resolves the directory that holds the shared database, so that all
// processes of one user on a host agree on it without configuration.
//
// In order of precedence it is: $TALKING_STICK_DATA_DIR when set and
// non-empty (made absolute); on Windows %APPDATA%\talking-stick; elsewhere
// $XDG_DATA_HOME/talking-stick when XDG_DATA_HOME is an absolute path, else
// ~/.local/share/talking-stick. macOS deliberately uses the XDG layout rather
// than ~/Library/Application Support, so the location is the same on every
// Unix. DataDir does not create the directory; see EnsureDataDir.
func DataDir() (string, error) {
	return dataDirFor(runtime.GOOS, os.Getenv, os.UserHomeDir)
}

// dataDirFor is DataDir as a pure function of the target OS, the environment
// and the home directory lookup, so every platform branch can be tested on
// any host. Paths for a goos other than the host's are joined with that OS's
// separator but not otherwise cleaned.
func dataDirFor(goos string, getenv func(string) string, home func() (string, error)) (string, error) {
	if dir := getenv(DataDirEnv); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("%w: making %s=%q absolute: %w", ErrDataDir, DataDirEnv, dir, err)
		}
		return abs, nil
	}
	if goos == "windows" {
		if appData := getenv("APPDATA"); appData != "" {
			return cleanFor(goos, joinFor(goos, appData, appDirName)), nil
		}
		h, err := homeDir(home)
		if err != nil {
			return "", fmt.Errorf("%w: %%APPDATA%% is not set and %w; set %s", ErrDataDir, err, DataDirEnv)
		}
		return cleanFor(goos, joinFor(goos, h, "AppData", "Roaming", appDirName)), nil
	}
	// The XDG Base Directory spec says relative values must be ignored.
	if xdgData := getenv("XDG_DATA_HOME"); path.IsAbs(xdgData) {
		return cleanFor(goos, joinFor(goos, xdgData, appDirName)), nil
	}
	h, err := homeDir(home)
	if err != nil {
		return "", fmt.Errorf("%w: %w; set %s", ErrDataDir, err, DataDirEnv)
	}
	return cleanFor(goos, joinFor(goos, h, ".local", "share", appDirName)), nil
}

// homeDir calls home and treats an empty answer as an error.
func homeDir(home func() (string, error)) (string, error) {
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("cannot determine home directory: %w", err)
	}
	if h == "" {
		return "", errors.New("cannot determine home directory: it is empty")
	}
	return h, nil
}

// joinFor joins path elements with goos's separator, trimming separators
// between them; unlike filepath.Join it works for a goos other than the host's.
func joinFor(goos, base string, elems ...string) string {
	seps := "/"
	if goos == "windows" {
		seps = `\/`
	}
	var b strings.Builder
	// A root base ("/" or `C:\`) trims to "" or "C:"; the separator written
	// before the first element restores it.
	b.WriteString(strings.TrimRight(base, seps))
	for _, e := range elems {
		b.WriteByte(seps[0])
		b.WriteString(strings.Trim(e, seps))
	}
	return b.String()
}

// cleanFor applies filepath.Clean when goos is the host OS, whose path rules
// filepath implements, and returns p unchanged otherwise.
func cleanFor(goos, p string) string {
	if goos == runtime.GOOS {
		return filepath.Clean(p)
	}
	return p
}

// EnsureDataDir makes dir ready to hold the database: it creates dir and any
// missing parents with owner-only permissions (0700), because the database
// reveals what the user's agents are doing, and it checks that dir is a
// writable directory. It returns an error wrapping ErrDataDir if dir exists
// but is not a directory, or cannot be created or written.
//
// Only directories this call creates are chmodded to 0700 (undoing a umask
// that removed owner bits); a directory that already exists, such as one the
// user chose through TALKING_STICK_DATA_DIR, keeps the permissions the user
// gave it, but on Unix it must be the user's own and writable by nobody
// else: otherwise the error wraps ErrDataDirUnsafe too.
func EnsureDataDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("%w: empty path", ErrDataDir)
	}
	// Find the missing ancestors, nearest to the root last.
	var missing []string
	for p := dir; ; {
		fi, err := os.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%w: %q exists but is not a directory", ErrDataDir, p)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %w (set %s to a writable directory)", ErrDataDir, err, DataDirEnv)
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	for i := len(missing) - 1; i >= 0; i-- {
		p := missing[i]
		err := os.Mkdir(p, 0o700)
		switch {
		case err == nil:
			// Mkdir's mode is filtered by the umask; make sure the owner
			// can use the directory and nobody else can.
			if err := os.Chmod(p, 0o700); err != nil {
				return fmt.Errorf("%w: setting permissions of %q: %w", ErrDataDir, p, err)
			}
		case errors.Is(err, fs.ErrExist):
			// Another process created it concurrently; fine if it is a directory.
			if fi, serr := os.Stat(p); serr != nil || !fi.IsDir() {
				return fmt.Errorf("%w: %q exists but is not a directory", ErrDataDir, p)
			}
		default:
			return fmt.Errorf("%w: cannot create %q: %w (set %s to a writable directory)", ErrDataDir, p, err, DataDirEnv)
		}
	}
	if err := CheckPrivateDir(dir); err != nil {
		return err
	}
	// Prove that SQLite will be able to create its files here.
	f, err := os.CreateTemp(dir, ".write-probe-*")
	if err != nil {
		return fmt.Errorf("%w: %q is not writable: %w (set %s to a writable directory)", ErrDataDir, dir, err, DataDirEnv)
	}
	name := f.Name()
	cerr := f.Close()
	rerr := os.Remove(name)
	if err := errors.Join(cerr, rerr); err != nil {
		return fmt.Errorf("%w: probing %q: %w", ErrDataDir, dir, err)
	}
	return nil
}

// unsupportedFS builds the error CheckLocalFS returns for dir on a filesystem
// of type fsType.
//
//lint:ignore U1000 used by each platform's CheckLocalFS except the no-op fallback
func unsupportedFS(dir, fsType string) error {
	return fmt.Errorf("%w: %q is on a %s filesystem, where SQLite locking is unreliable; set %s to a directory on a local disk",
		ErrUnsupportedFilesystem, dir, fsType, DataDirEnv)
}

// CheckPrivateDir returns an error wrapping ErrDataDir and ErrDataDirUnsafe
// when dir is owned by another user or writable by its group or others
// (on Unix; elsewhere only that it is a directory).
func CheckPrivateDir(dir string) error {
	if err := ownerfs.CheckDir(dir); err != nil {
		if errors.Is(err, ownerfs.ErrUnsafe) {
			return fmt.Errorf("%w: %w: %s", ErrDataDir, ErrDataDirUnsafe, strings.TrimPrefix(err.Error(), ownerfs.ErrUnsafe.Error()+": "))
		}
		return fmt.Errorf("%w: %w", ErrDataDir, err)
	}
	return nil
}

// PrivateHint is the hint of an error wrapping ErrDataDirUnsafe about dir.
func PrivateHint(dir string) string {
	return fmt.Sprintf("use a directory only you own and write: run 'chmod 700 %s' if it is yours, or set %s to a directory of your own (stick creates it owner-only)", dir, DataDirEnv)
}
