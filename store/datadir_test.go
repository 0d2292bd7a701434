package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestDataDirFor(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	homeOK := func(h string) func() (string, error) {
		return func() (string, error) { return h, nil }
	}
	homeErr := func() (string, error) { return "", errors.New("$HOME is not defined") }
	// The override is made absolute with the host's rules, so its expected
	// values are built with filepath too.
	absOverride, err := filepath.Abs(filepath.Join(string(filepath.Separator), "srv", "stick"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		goos string
		env  map[string]string
		home func() (string, error)
		want string
	}{
		{"override", "linux", map[string]string{DataDirEnv: absOverride, "XDG_DATA_HOME": "/x"}, homeOK("/home/u"), absOverride},
		{"override relative", "linux", map[string]string{DataDirEnv: "rel/dir"}, homeOK("/home/u"), filepath.Join(cwd, "rel", "dir")},
		{"override on windows", "windows", map[string]string{DataDirEnv: absOverride, "APPDATA": `C:\AppData`}, homeErr, absOverride},
		{"override wins over missing home", "darwin", map[string]string{DataDirEnv: absOverride}, homeErr, absOverride},
		{"xdg", "linux", map[string]string{"XDG_DATA_HOME": "/data/xdg"}, homeOK("/home/u"), "/data/xdg/talking-stick"},
		{"xdg trailing slash", "freebsd", map[string]string{"XDG_DATA_HOME": "/data/xdg/"}, homeOK("/home/u"), "/data/xdg/talking-stick"},
		{"xdg relative ignored", "linux", map[string]string{"XDG_DATA_HOME": "data/xdg"}, homeOK("/home/u"), "/home/u/.local/share/talking-stick"},
		{"xdg on darwin", "darwin", map[string]string{"XDG_DATA_HOME": "/data/xdg"}, homeOK("/Users/u"), "/data/xdg/talking-stick"},
		{"linux default", "linux", nil, homeOK("/home/u"), "/home/u/.local/share/talking-stick"},
		{"darwin default is not Library", "darwin", nil, homeOK("/Users/u"), "/Users/u/.local/share/talking-stick"},
		{"other unix default", "openbsd", nil, homeOK("/home/u"), "/home/u/.local/share/talking-stick"},
		{"root home", "linux", nil, homeOK("/"), "/.local/share/talking-stick"},
		{"windows appdata", "windows", map[string]string{"APPDATA": `C:\Users\u\AppData\Roaming`}, homeErr, `C:\Users\u\AppData\Roaming\talking-stick`},
		{"windows appdata trailing sep", "windows", map[string]string{"APPDATA": `D:\`}, homeErr, `D:\talking-stick`},
		{"windows ignores xdg", "windows", map[string]string{"APPDATA": `C:\R`, "XDG_DATA_HOME": "/data/xdg"}, homeErr, `C:\R\talking-stick`},
		{"windows without appdata", "windows", nil, homeOK(`C:\Users\u`), `C:\Users\u\AppData\Roaming\talking-stick`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.goos == runtime.GOOS || (tt.goos != "windows" && runtime.GOOS != "windows") {
				// Host-native paths are cleaned with the host's separator.
				tt.want = filepath.FromSlash(tt.want)
			}
			getenv := func(k string) string { return tt.env[k] }
			got, err := dataDirFor(tt.goos, getenv, tt.home)
			if err != nil {
				t.Fatalf("dataDirFor: %v", err)
			}
			if got != tt.want {
				t.Errorf("dataDirFor(%s) = %q, want %q", tt.goos, got, tt.want)
			}
		})
	}
}

func TestDataDirForErrors(t *testing.T) {
	getenv := func(string) string { return "" }
	homes := map[string]func() (string, error){
		"home error": func() (string, error) { return "", errors.New("$HOME is not defined") },
		"empty home": func() (string, error) { return "", nil },
	}
	for name, home := range homes {
		for _, goos := range []string{"linux", "darwin", "windows"} {
			_, err := dataDirFor(goos, getenv, home)
			if !errors.Is(err, ErrDataDir) {
				t.Errorf("%s on %s: err = %v, want ErrDataDir", name, goos, err)
			}
		}
	}
}

func TestDataDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(DataDirEnv, dir)
	got, err := DataDir()
	if err != nil || got != dir {
		t.Fatalf("DataDir() = %q, %v; want %q", got, err, dir)
	}
	t.Setenv(DataDirEnv, "")
	got, err = DataDir()
	if err != nil {
		t.Skipf("no default data directory here: %v", err)
	}
	if !filepath.IsAbs(got) || filepath.Base(got) != "talking-stick" {
		t.Errorf("DataDir() = %q, want an absolute path ending in talking-stick", got)
	}
}

func TestEnsureDataDirCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "talking-stick")
	if err := EnsureDataDir(dir); err != nil {
		t.Fatalf("EnsureDataDir: %v", err)
	}
	if runtime.GOOS != "windows" {
		for _, p := range []string{dir, filepath.Dir(dir), filepath.Dir(filepath.Dir(dir))} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if perm := fi.Mode().Perm(); perm != 0o700 {
				t.Errorf("%s: mode %v, want 0700", p, perm)
			}
		}
	}
	// Idempotent, and leaves no probe file behind.
	if err := EnsureDataDir(dir); err != nil {
		t.Fatalf("second EnsureDataDir: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("data directory not empty after EnsureDataDir: %v", entries)
	}
}

func TestEnsureDataDirKeepsExistingPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDataDir(dir); err != nil {
		t.Fatalf("EnsureDataDir: %v", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o750 {
		t.Errorf("existing directory's mode changed to %v", perm)
	}
}

func TestEnsureDataDirNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		err := EnsureDataDir(dir)
		if !errors.Is(err, ErrDataDir) {
			t.Errorf("EnsureDataDir(%q) = %v, want ErrDataDir", dir, err)
		}
	}
	if err := EnsureDataDir(""); !errors.Is(err, ErrDataDir) {
		t.Errorf("EnsureDataDir(\"\") = %v, want ErrDataDir", err)
	}
}

func TestEnsureDataDirReadOnlyParent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	parent := t.TempDir()
	if os.Geteuid() == 0 {
		// Root ignores permission bits, so a read-only parent cannot be
		// tested; check that a file in the way of a parent fails instead.
		blocker := filepath.Join(parent, "blocker")
		if err := os.WriteFile(blocker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		err := EnsureDataDir(filepath.Join(blocker, "a", "talking-stick"))
		if !errors.Is(err, ErrDataDir) {
			t.Fatalf("EnsureDataDir under a file = %v, want ErrDataDir", err)
		}
		t.Logf("running as root; checked the file-in-the-way variant: %v", err)
		return
	}
	if err := os.Chmod(parent, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(parent, 0o700) })

	err := EnsureDataDir(filepath.Join(parent, "talking-stick"))
	if !errors.Is(err, ErrDataDir) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("EnsureDataDir under read-only parent = %v, want ErrDataDir wrapping a permission error", err)
	}
	// An existing but read-only directory is not writable either.
	err = EnsureDataDir(parent)
	if !errors.Is(err, ErrDataDir) {
		t.Errorf("EnsureDataDir(read-only dir) = %v, want ErrDataDir", err)
	}
}
