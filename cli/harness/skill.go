package harness

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/stickhq/stick/internal/atomicfile"
)

// SkillPath returns the file the skill is installed as for this harness,
// <skills dir>/stick/SKILL.md, and false when the harness reads no skills.
func (h *Harness) SkillPath() (string, bool, error) {
	if h.skillsDir == nil {
		return "", false, nil
	}
	dir, err := h.skillsDir()
	if err != nil {
		return "", true, err
	}
	return filepath.Join(dir, SkillName, "SKILL.md"), true, nil
}

// InstallSkill writes content as the harness's stick skill, if the harness
// is detected and reads skills. The same content again changes nothing;
// other content is replaced.
func (h *Harness) InstallSkill(content []byte, dryRun bool) Result {
	res, path, ok := h.skillTarget()
	if !ok {
		return res
	}
	cur, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(cur, content):
		res.Status = StatusAlreadyInstalled
		return res
	case err == nil:
		res.Status = StatusReplaced
	case errors.Is(err, fs.ErrNotExist):
		res.Status = StatusInstalled
	default:
		return failed(res, err)
	}
	if dryRun {
		res.Status = dryRunOf(res.Status)
		return res
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return failed(res, err)
	}
	if err := atomicfile.WriteFile(path, content, 0o644); err != nil {
		return failed(res, err)
	}
	return res
}

// UninstallSkill removes the harness's stick skill, if the harness is
// detected and reads skills, and the directories install may have created
// for it when they are left empty: the stick folder, the skills folder
// (and, for Codex, ~/.agents). A folder with anything else in it stays.
func (h *Harness) UninstallSkill(dryRun bool) Result {
	res, path, ok := h.skillTarget()
	if !ok {
		return res
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		res.Status, res.Path = StatusNotInstalled, ""
		return res
	} else if err != nil {
		return failed(res, err)
	}
	res.Status = StatusUninstalled
	if dryRun {
		res.Status = StatusWouldUninstall
		return res
	}
	if err := os.Remove(path); err != nil {
		return failed(res, err)
	}
	root, err := h.skillRoot()
	if err != nil {
		return res
	}
	for dir := filepath.Dir(path); strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil { // only when empty: other files there are not ours to delete
			break
		}
	}
	return res
}

// skillRoot is the directory above which UninstallSkill removes nothing.
func (h *Harness) skillRoot() (string, error) {
	if h.skillsRoot != nil {
		return h.skillsRoot()
	}
	dir, err := h.skillsDir()
	return filepath.Dir(dir), err
}

// skillTarget returns the skill file of a detected harness that reads
// skills; otherwise ok is false and res says why.
func (h *Harness) skillTarget() (res Result, path string, ok bool) {
	res = Result{Harness: h.Name}
	path, reads, err := h.SkillPath()
	switch {
	case !reads:
		res.Status = StatusUnsupported
		return res, "", false
	case err != nil:
		return failed(res, err), "", false
	}
	if _, detected, why := h.Detect(); !detected {
		res.Status, res.Detail = StatusSkipped, "not detected: "+why
		return res, "", false
	}
	res.Path = path
	return res, path, true
}
