//go:build linux

package store

import (
	"errors"
	"strings"
	"testing"
)

func TestClassifyFS(t *testing.T) {
	const ext4 = 0xEF53
	tests := []struct {
		magic     int64
		mountType string
		wantName  string
		wantNet   bool
	}{
		{ext4, "ext4", "ext4", false},
		{ext4, "", "0xef53", false},
		{0x01021994, "tmpfs", "tmpfs", false},
		{0x9123683E, "btrfs", "btrfs", false},
		{magicNFS, "nfs4", "nfs4", true},
		{magicNFS, "", "nfs", true},
		{magicSMB, "", "smb", true},
		{magicCIFS, "cifs", "cifs", true},
		{magicSMB2, "smb3", "smb3", true},
		{magicCODA, "", "coda", true},
		{magicAFS, "", "afs", true},
		{magic9P, "9p", "9p", true},
		{magicCeph, "ceph", "ceph", true},
		{magicVBoxSF, "", "vboxsf", true},
		{magicFUSE, "fuse.sshfs", "fuse.sshfs", true},
		{magicFUSE, "fuse.rclone", "fuse.rclone", true},
		{magicFUSE, "fuse.s3fs", "fuse.s3fs", true},
		{magicFUSE, "fuse.gcsfuse", "fuse.gcsfuse", true},
		{magicFUSE, "fuse.glusterfs", "fuse.glusterfs", true},
		{magicFUSE, "fuse.ntfs-3g", "fuse.ntfs-3g", false},
		{magicFUSE, "virtiofs", "virtiofs", false},
		{magicFUSE, "fuse", "fuse", false},
		{magicFUSE, "", "fuse", false},
		// The mount table is a second opinion when the magic is unremarkable.
		{ext4, "nfs", "nfs", true},
		{0x794C7630, "cifs", "cifs", true},
	}
	for _, tt := range tests {
		name, network := classifyFS(tt.magic, tt.mountType)
		if name != tt.wantName || network != tt.wantNet {
			t.Errorf("classifyFS(%#x, %q) = %q, %v; want %q, %v",
				tt.magic, tt.mountType, name, network, tt.wantName, tt.wantNet)
		}
	}
}

const sampleMountinfo = `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
40 27 0:50 / /home rw,relatime shared:2 - ext4 /dev/vdb1 rw
41 40 0:51 / /home/u/remote rw,nosuid,nodev,relatime shared:3 - fuse.sshfs u@host:/srv rw,user_id=1000
42 40 0:52 /export /home/u/my\040nfs\040share rw,relatime - nfs4 server:/export rw,vers=4.2
43 40 0:53 / /home/u/tab\011dir rw - cifs //srv/share rw
44 40 0:54 / /home/u/back\134slash rw - 9p drvfs rw
45 27 0:55 / /mnt rw - tmpfs tmpfs rw
46 45 0:56 / /mnt rw - nfs srv:/mnt rw
malformed line
47 27 0:57 / /broken rw no-separator-here ext4
`

func TestParseMountinfo(t *testing.T) {
	mounts := parseMountinfo(sampleMountinfo)
	want := []mountEntry{
		{"/proc", "proc"},
		{"/", "ext4"},
		{"/home", "ext4"},
		{"/home/u/remote", "fuse.sshfs"},
		{"/home/u/my nfs share", "nfs4"},
		{"/home/u/tab\tdir", "cifs"},
		{`/home/u/back\slash`, "9p"},
		{"/mnt", "tmpfs"},
		{"/mnt", "nfs"},
	}
	if len(mounts) != len(want) {
		t.Fatalf("parsed %d mounts, want %d: %q", len(mounts), len(want), mounts)
	}
	for i := range want {
		if mounts[i] != want[i] {
			t.Errorf("mount %d = %q, want %q", i, mounts[i], want[i])
		}
	}
}

func TestMountFSType(t *testing.T) {
	mounts := parseMountinfo(sampleMountinfo)
	tests := map[string]string{
		"/":                                  "ext4",
		"/etc/passwd":                        "ext4",
		"/home":                              "ext4",
		"/home/u/.local/share/talking-stick": "ext4",
		"/home/u/remote":                     "fuse.sshfs",
		"/home/u/remote/x/talking-stick":     "fuse.sshfs",
		"/home/u/remotely/talking-stick":     "ext4", // a prefix, not a parent
		"/home/u/my nfs share/talking-stick": "nfs4",
		"/home/u/tab\tdir/x":                 "cifs",
		`/home/u/back\slash`:                 "9p",
		"/mnt/x":                             "nfs", // the later of stacked mounts
		"/proc/self":                         "proc",
	}
	for p, want := range tests {
		if got := mountFSType(mounts, p); got != want {
			t.Errorf("mountFSType(%q) = %q, want %q", p, got, want)
		}
	}
	if got := mountFSType(nil, "/x"); got != "" {
		t.Errorf("mountFSType(nil) = %q, want empty", got)
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	tests := map[string]string{
		`plain`:          "plain",
		`a\040b`:         "a b",
		`a\011b\012c`:    "a\tb\nc",
		`back\134slash`:  `back\slash`,
		`trailing\04`:    `trailing\04`,
		`not\0x0octal\9`: `not\0x0octal\9`,
		`\040lead`:       " lead",
		`end\040`:        "end ",
	}
	for in, want := range tests {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckLocalFS(t *testing.T) {
	dir := t.TempDir()
	err := CheckLocalFS(dir)
	if errors.Is(err, ErrUnsupportedFilesystem) {
		// Possible on a machine whose temporary directory is remote; the
		// message is what matters then.
		if !strings.Contains(err.Error(), DataDirEnv) {
			t.Errorf("error does not mention %s: %v", DataDirEnv, err)
		}
		t.Skipf("temporary directory is on a network filesystem: %v", err)
	}
	if err != nil {
		t.Fatalf("CheckLocalFS(%q) = %v", dir, err)
	}
	if err := CheckLocalFS(dir + "/missing"); err == nil || errors.Is(err, ErrUnsupportedFilesystem) {
		t.Errorf("CheckLocalFS(missing) = %v, want a stat error", err)
	}
}

func TestUnsupportedFSMessage(t *testing.T) {
	err := unsupportedFS("/home/u/remote", "fuse.sshfs")
	if !errors.Is(err, ErrUnsupportedFilesystem) {
		t.Fatalf("not ErrUnsupportedFilesystem: %v", err)
	}
	for _, want := range []string{"/home/u/remote", "fuse.sshfs", DataDirEnv} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}
