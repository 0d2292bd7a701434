//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDoctorReportsDataDirOthersMayWrite: doctor fails the data dir check,
// with the fix, when the data directory or one stick keeps in it is
// writable by others, is a link, or (as root) belongs to another user.
func TestDoctorReportsDataDirOthersMayWrite(t *testing.T) {
	cases := map[string]func(t *testing.T, data string) string{
		"writable by others": func(t *testing.T, data string) string {
			if err := os.Chmod(data, 0o777); err != nil {
				t.Fatal(err)
			}
			return "writable by its group or by others"
		},
		"cli writable by group": func(t *testing.T, data string) string {
			if err := os.Mkdir(filepath.Join(data, "cli"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(data, "cli"), 0o770); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(data, "cli") + " is writable"
		},
		"members a link": func(t *testing.T, data string) string {
			if err := os.Symlink(t.TempDir(), filepath.Join(data, "members")); err != nil {
				t.Fatal(err)
			}
			return "symbolic link"
		},
		"owned by another user": func(t *testing.T, data string) string {
			if os.Geteuid() != 0 {
				t.Skip("needs root to make a directory owned by another user (uid 65534)")
			}
			if err := os.Chown(data, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return "owned by uid 65534"
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			data := t.TempDir()
			t.Setenv("TALKING_STICK_DATA_DIR", data)
			want := setup(t, data)
			_, checks := doctor(t)
			c := wantCheck(t, checks, "data dir", checkFail, want)
			if c.Fix == "" {
				t.Fatalf("no fix: %+v", c)
			}
		})
	}
}
