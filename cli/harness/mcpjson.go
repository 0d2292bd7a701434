package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/stickhq/stick/internal/atomicfile"
)

// antigravityRegistrar merges the server into Antigravity's MCP file,
// ~/.gemini/config/mcp_config.json, the one its CLI (agy), IDE and app share:
//
//	"mcpServers": {"stick": {"command": "<stick>", "args": ["mcp"]}}
//
// 'agy mcp add' is documented only for servers reached by URL, so stick edits
// the file, keeping every other key, comment and byte of it. A missing or
// blank file (Antigravity may leave one empty) starts as mcpNewFile.
// Uninstall removes the server, and the "mcpServers" object when nothing else
// is left in it; a file left as mcpNewFile is removed, with the directories
// install created for it (when Antigravity was found by its binary, not by
// that directory).
type antigravityRegistrar struct{}

// mcpNewFile is the content of an MCP file stick creates, before the server
// is added.
const mcpNewFile = "{}\n"

// antigravityFile is Antigravity's MCP file.
func antigravityFile() (string, error) {
	dir, err := homeDir(".gemini", "config")()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "mcp_config.json"), nil
}

// readMCPFile reads an MCP file; new is true when it does not exist or is
// blank, and src is then mcpNewFile.
func readMCPFile(path string) (src []byte, new bool, err error) {
	src, err = os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(bytes.TrimSpace(src)) == 0 {
		return []byte(mcpNewFile), true, nil
	}
	return src, false, err
}

// mcpServer is the part of an "mcpServers" entry stick looks at.
type mcpServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func (antigravityRegistrar) install(_ context.Context, h *Harness, _ string, opts Options) Result {
	want := opts.cmdline()
	res := Result{Harness: h.Name, Detail: ShellJoin(want)}
	path, err := antigravityFile()
	if err != nil {
		return failed(res, err)
	}
	res.Path = path
	src, isNew, err := readMCPFile(path)
	if err != nil {
		return failed(res, err)
	}
	raw, found, err := getJSON(src, "mcpServers", ServerName)
	if err != nil {
		return failed(res, &configError{path: path, err: err})
	}
	res.Status = StatusInstalled
	if found {
		var cur mcpServer
		if raw[0] == '{' && json.Unmarshal(raw, &cur) == nil && cur.Command != "" {
			if slices.Equal(append([]string{cur.Command}, cur.Args...), want) {
				res.Status = StatusAlreadyInstalled
				return res
			}
			res.Previous = ShellJoin(append([]string{cur.Command}, cur.Args...))
		}
		res.Status = StatusReplaced
	}
	out, err := setJSON(src, fields{{"command", want[0]}, {"args", want[1:]}}, "mcpServers", ServerName)
	if err != nil {
		return failed(res, &configError{path: path, doing: "cannot add the stick server to", err: err})
	}
	if opts.DryRun {
		res.Status = dryRunOf(res.Status)
		return res
	}
	if isNew {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return failed(res, err)
		}
	}
	if err := atomicfile.WriteFile(path, out, 0o644); err != nil {
		return failed(res, err)
	}
	return res
}

func (antigravityRegistrar) uninstall(_ context.Context, h *Harness, bin string, opts Options) Result {
	res := Result{Harness: h.Name, Status: StatusNotInstalled}
	path, err := antigravityFile()
	if err != nil {
		return failed(res, err)
	}
	src, isNew, err := readMCPFile(path)
	if err != nil {
		return failed(res, err)
	}
	if isNew {
		return res
	}
	raw, found, err := getJSON(src, "mcpServers", ServerName)
	if err != nil {
		return failed(res, &configError{path: path, err: err})
	}
	if !found {
		return res
	}
	var cur mcpServer
	if json.Unmarshal(raw, &cur) == nil && cur.Command != "" {
		res.Previous = ShellJoin(append([]string{cur.Command}, cur.Args...))
	}
	out, _, err := deleteJSON(src, "mcpServers", ServerName)
	if err == nil {
		out, err = deleteEmpty(out, "mcpServers")
	}
	if err != nil {
		return failed(res, &configError{path: path, doing: "cannot remove the stick server from", err: err})
	}
	res.Status, res.Path = StatusUninstalled, path
	if opts.DryRun {
		res.Status = StatusWouldUninstall
		return res
	}
	if !isEmptyObject(out) {
		if err := atomicfile.WriteFile(path, out, 0o644); err != nil {
			return failed(res, err)
		}
		return res
	}
	// Nothing but the server was in the file: remove it, and the folders
	// left empty up to the home directory when the binary, not the folder,
	// detects Antigravity.
	if err := os.Remove(path); err != nil {
		return failed(res, err)
	}
	if bin != "" {
		removeEmptyDirs(filepath.Dir(path))
	}
	return res
}

// removeEmptyDirs removes dir and its parents below the home directory, as
// long as they are empty.
func removeEmptyDirs(dir string) {
	home, err := userHome()
	if err != nil {
		return
	}
	for ; dir != home && filepath.Dir(dir) != dir && len(dir) > len(home); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			return
		}
	}
}
