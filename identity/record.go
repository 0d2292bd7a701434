package identity

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/stickhq/stick/internal/atomicfile"
	"github.com/stickhq/stick/internal/ownerfs"
)

// Record is what a harness's server keeps on this host of one member it
// joined a room as, so that the harness, restarted in the same workspace
// without the member's reclaim token, can become it again. It holds the
// reclaim token, a secret: records are owner-only files (0600 in 0700
// directories) and are never shown.
type Record struct {
	// Harness is the client's slug (Slug), e.g. "claude-code".
	Harness string `json:"harness"`
	// WorkspaceRoot is the workspace root the join resolved.
	WorkspaceRoot string `json:"workspace_root"`
	// RoomID and AgentID name the member.
	RoomID  string `json:"room_id"`
	AgentID string `json:"agent_id"`
	// ReclaimToken is the member's reclaim token.
	ReclaimToken string `json:"reclaim_token"`
	// WrittenAt is when the member last joined; the most recent comes first.
	WrittenAt time.Time `json:"written_at"`
}

// Records are the records of one data directory, in its members directory:
// one subdirectory per harness and workspace, one file per member.
type Records struct {
	dir string
}

// NewRecords returns the records of the data directory dataDir.
func NewRecords(dataDir string) *Records {
	return &Records{dir: filepath.Join(dataDir, "members")}
}

// keyDir is the directory of the records of harness in workspace root.
func (r *Records) keyDir(harness, root string) string {
	return filepath.Join(r.dir, fileName(harness+"\x00"+root))
}

// memberFile is the file name of the record of agentID in roomID.
func memberFile(roomID, agentID string) string {
	return fileName(roomID+"\x00"+agentID) + ".json"
}

// Put writes rec atomically, replacing the record of the same member; a
// zero WrittenAt is now.
func (r *Records) Put(rec Record) error {
	if rec.WrittenAt.IsZero() {
		rec.WrittenAt = time.Now()
	}
	dir := r.keyDir(rec.Harness, rec.WorkspaceRoot)
	if err := ownerDir(r.dir); err != nil {
		return err
	}
	if err := ownerDir(dir); err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, memberFile(rec.RoomID, rec.AgentID))
	return atomicfile.WritePrivate(path, data)
}

// Find returns the records of harness in workspace root, the most recently
// written first (ties by agent id, then room), so every caller picks the
// same one. Unreadable records are skipped.
func (r *Records) Find(harness, root string) ([]Record, error) {
	dir := r.keyDir(harness, root)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := ownerfs.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var rec Record
		if json.Unmarshal(data, &rec) != nil || rec.Harness != harness || rec.WorkspaceRoot != root || rec.ReclaimToken == "" {
			continue
		}
		out = append(out, rec)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.WrittenAt.Equal(b.WrittenAt) {
			return a.WrittenAt.After(b.WrittenAt)
		}
		if a.AgentID != b.AgentID {
			return a.AgentID < b.AgentID
		}
		return a.RoomID < b.RoomID
	})
	return out, nil
}

// Remove deletes every record of agentID in roomID, whatever harness and
// workspace it was written for: the member left.
func (r *Records) Remove(roomID, agentID string) error {
	keys, err := os.ReadDir(r.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	name := memberFile(roomID, agentID)
	var errs []error
	for _, k := range keys {
		if !k.IsDir() {
			continue
		}
		if err := os.Remove(filepath.Join(r.dir, k.Name(), name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
