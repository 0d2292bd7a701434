package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Filesystem magic numbers reported by statfs(2) (see linux/magic.h).
const (
	magicNFS    = 0x6969
	magicSMB    = 0x517B
	magicCIFS   = 0xFF534D42
	magicSMB2   = 0xFE534D42
	magicCODA   = 0x73757245
	magicAFS    = 0x5346414F
	magicKAFS   = 0x6B414653
	magic9P     = 0x01021997
	magicCeph   = 0x00C36400
	magicLustre = 0x0BD00BD0
	magicVBoxSF = 0x786F4256
	magicFUSE   = 0x65735546
)

// mountinfoPath lists this process's mounts and their filesystem types.
const mountinfoPath = "/proc/self/mountinfo"

// networkMagic names the filesystems recognised by their statfs magic number
// alone as unsafe for SQLite.
var networkMagic = map[int64]string{
	magicNFS:    "nfs",
	magicSMB:    "smb",
	magicCIFS:   "cifs",
	magicSMB2:   "smb2",
	magicCODA:   "coda",
	magicAFS:    "afs",
	magicKAFS:   "afs",
	magic9P:     "9p",
	magicCeph:   "ceph",
	magicLustre: "lustre",
	magicVBoxSF: "vboxsf",
}

// networkTypes lists mountinfo filesystem types that are unsafe for SQLite:
// network filesystems, network-backed FUSE filesystems, and hypervisor shared
// folders, all known to break POSIX locks or shared-memory mappings. Other
// FUSE types (ntfs-3g, virtiofs, ...) are treated as local.
var networkTypes = map[string]bool{
	"nfs": true, "nfs4": true, "cifs": true, "smb3": true, "smbfs": true,
	"smb": true, "9p": true, "afs": true, "coda": true, "ceph": true,
	"lustre": true, "glusterfs": true, "davfs": true, "sshfs": true,
	"vboxsf": true, "prl_fs": true, "vmhgfs": true,
	"fuse.sshfs": true, "fuse.rclone": true, "fuse.s3fs": true,
	"fuse.gcsfuse": true, "fuse.goofys": true, "fuse.glusterfs": true,
	"fuse.ceph": true, "fuse.ceph-fuse": true, "fuse.davfs": true,
	"fuse.davfs2": true, "fuse.smbnetfs": true, "fuse.curlftpfs": true,
	"fuse.blobfuse": true, "fuse.blobfuse2": true, "fuse.vmhgfs-fuse": true,
}

// CheckLocalFS returns nil when dir is on a local filesystem, and an error
// wrapping ErrUnsupportedFilesystem that names the filesystem type and tells
// the user to set TALKING_STICK_DATA_DIR otherwise. SQLite's locking and WAL
// shared memory are unreliable on network filesystems, so the store refuses
// them up front instead of risking a corrupt database.
//
// On Linux the statfs magic number is checked first; the type recorded in
// /proc/self/mountinfo for the mount holding dir refines it, which is how
// FUSE filesystems (sshfs, rclone, ...) are told apart.
func CheckLocalFS(dir string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Errorf("checking filesystem of %q: %w", dir, err)
	}
	// Magic numbers are 32 bits; Type is int32, uint32 or int64 by arch.
	magic := int64(uint32(st.Type))

	var mountType string
	if data, err := os.ReadFile(mountinfoPath); err == nil {
		mountType = mountFSType(parseMountinfo(string(data)), resolvePath(dir))
	}
	if name, network := classifyFS(magic, mountType); network {
		return unsupportedFS(dir, name)
	}
	return nil
}

// resolvePath returns dir made absolute with symbolic links resolved, falling
// back to the best it can get, so it can be matched against mount points.
func resolvePath(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// classifyFS decides whether a filesystem is unsafe for SQLite from its
// statfs magic number and the type from mountinfo (empty if unknown). name
// is the most specific type name known, for messages.
func classifyFS(magic int64, mountFSType string) (name string, network bool) {
	name = mountFSType
	if magicName, ok := networkMagic[magic]; ok {
		if name == "" {
			name = magicName
		}
		return name, true
	}
	if name == "" {
		if magic == magicFUSE {
			name = "fuse"
		} else {
			name = fmt.Sprintf("0x%x", magic)
		}
	}
	return name, networkTypes[mountFSType]
}

// mountEntry is the part of one /proc/self/mountinfo line that CheckLocalFS uses.
type mountEntry struct {
	point  string // mount point, unescaped
	fsType string // e.g. "ext4", "nfs4", "fuse.sshfs"
}

// parseMountinfo parses the text of /proc/self/mountinfo (see proc(5)),
// skipping malformed lines. Mount points have \ooo octal escapes undone.
func parseMountinfo(text string) []mountEntry {
	var out []mountEntry
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		// id parent major:minor root mountpoint options [optional...] - fstype source superopts
		if len(fields) < 7 {
			continue
		}
		sep := -1
		for i := 6; i < len(fields); i++ {
			if fields[i] == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+1 >= len(fields) {
			continue
		}
		out = append(out, mountEntry{
			point:  unescapeMountinfo(fields[4]),
			fsType: unescapeMountinfo(fields[sep+1]),
		})
	}
	return out
}

// unescapeMountinfo undoes the kernel's \ooo octal escaping of space, tab,
// newline and backslash in mountinfo fields.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// mountFSType returns the filesystem type of the mount containing the
// absolute path p: the longest mount point that is p or an ancestor of it,
// and among equal ones the last listed (the topmost of stacked mounts). It
// returns "" when nothing matches.
func mountFSType(mounts []mountEntry, p string) string {
	best, bestLen := "", -1
	for _, m := range mounts {
		if !pathWithin(p, m.point) {
			continue
		}
		if len(m.point) >= bestLen {
			best, bestLen = m.fsType, len(m.point)
		}
	}
	return best
}

// pathWithin reports whether p is dir or lies beneath it.
func pathWithin(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}
