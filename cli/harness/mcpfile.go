package harness

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/stickhq/stick/internal/atomicfile"
)

// OpenCode has no non-interactive 'mcp add', so stick merges its server into
// OpenCode's global configuration file:
//
//	"mcp": {"stick": {"type": "local", "command": ["<stick>", "mcp"], "enabled": true}}
//
// OpenCode reads opencode.json and opencode.jsonc from its directory (and
// writes opencode.jsonc first when both exist). stick edits the file that
// already holds the server, else opencode.jsonc if it exists, else
// opencode.json, created when OpenCode is detected but has no file yet.
// Uninstall removes the server from each file that has it, and the "mcp"
// object as well when nothing else is left in it: an empty "mcp" means the
// same as none, and a file that had no "mcp" before install gets its original
// bytes back. A file install created is removed (what is left of it is then
// exactly openCodeNewFile), and so is the directory it created for it.
var openCodeFiles = []string{"opencode.jsonc", "opencode.json"}

// openCodeNewFile is the content of a configuration file stick creates,
// before the server is added: the schema line OpenCode itself writes.
const openCodeNewFile = "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n"

type openCodeRegistrar struct{}

// openCodeEntry is the server entry: its fields stick owns, in order.
func openCodeEntry(cmdline []string) fields {
	return fields{{"type", "local"}, {"command", cmdline}, {"enabled", true}}
}

// configFile is one configuration file: its path and bytes; new when it does
// not exist yet.
type configFile struct {
	path string
	src  []byte
	new  bool
}

// openCodeConfigs reads the configuration files that exist.
func openCodeConfigs() ([]configFile, string, error) {
	dir, err := openCodeDir("")()
	if err != nil {
		return nil, "", err
	}
	var files []configFile
	for _, name := range openCodeFiles {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		files = append(files, configFile{path: path, src: src})
	}
	return files, dir, nil
}

func (openCodeRegistrar) install(_ context.Context, h *Harness, _ string, opts Options) Result {
	res := Result{Harness: h.Name, Detail: ShellJoin(opts.cmdline())}
	files, dir, err := openCodeConfigs()
	if err != nil {
		return failed(res, err)
	}
	target := configFile{path: filepath.Join(dir, "opencode.json"), src: []byte(openCodeNewFile), new: true}
	if len(files) > 0 {
		target = files[0]
	}
	for _, f := range files {
		if _, found, err := getJSON(f.src, "mcp", ServerName); err != nil {
			return failed(res, &configError{path: f.path, err: err})
		} else if found {
			target = f
			break
		}
	}
	res.Path = target.path
	out, previous, err := openCodeAdd(target.src, opts.Command, opts.flags()...)
	if err != nil {
		return failed(res, &configError{path: target.path, doing: "cannot add the stick server to", err: err})
	}
	switch {
	case out == nil:
		res.Status = StatusAlreadyInstalled
		return res
	case previous != nil:
		res.Status, res.Previous = StatusReplaced, ShellJoin(previous)
	default:
		res.Status = StatusInstalled
	}
	if opts.DryRun {
		res.Status = dryRunOf(res.Status)
		return res
	}
	if target.new {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return failed(res, err)
		}
	}
	if err := atomicfile.WriteFile(target.path, out, 0o644); err != nil {
		return failed(res, err)
	}
	return res
}

func (openCodeRegistrar) uninstall(_ context.Context, h *Harness, bin string, opts Options) Result {
	res := Result{Harness: h.Name, Status: StatusNotInstalled}
	files, dir, err := openCodeConfigs()
	if err != nil {
		return failed(res, err)
	}
	for _, f := range files {
		if _, _, err := getJSON(f.src, "mcp", ServerName); err != nil {
			return failed(res, &configError{path: f.path, err: err})
		}
		out, previous, err := openCodeRemove(f.src)
		if err != nil {
			return failed(res, &configError{path: f.path, doing: "cannot remove the stick server from", err: err})
		}
		if out == nil {
			continue
		}
		res.Status, res.Path, res.Previous = StatusUninstalled, f.path, ShellJoin(previous)
		if opts.DryRun {
			res.Status = StatusWouldUninstall
			continue
		}
		if string(out) == openCodeNewFile {
			// The file as install created it: remove it, and the directory
			// if install made that too (left empty, and not what detects
			// OpenCode, which is then its binary).
			if err := os.Remove(f.path); err != nil {
				return failed(res, err)
			}
			if bin != "" {
				os.Remove(dir)
			}
			continue
		}
		if err := atomicfile.WriteFile(f.path, out, 0o644); err != nil {
			return failed(res, err)
		}
	}
	return res
}

// openCodeServer is the part of a server entry stick looks at.
type openCodeServer struct {
	Type    string   `json:"type"`
	Command []string `json:"command"`
	Enabled *bool    `json:"enabled"`
}

// openCodeAdd adds or updates the stick server in an OpenCode configuration.
// It returns nil when the entry is already as it would be written, and the
// command line of the entry it changed, if there was one. Only the fields
// stick owns are written: other keys of an existing entry (environment,
// timeout) stay. The entry runs "<command> mcp <flags>".
func openCodeAdd(src []byte, command string, flags ...string) (out []byte, previous []string, err error) {
	raw, found, err := getJSON(src, "mcp", ServerName)
	if err != nil {
		return nil, nil, err
	}
	want := openCodeEntry(append([]string{command, "mcp"}, flags...))
	if !found {
		out, err := setJSON(src, want, "mcp", ServerName)
		return out, nil, err
	}
	var cur openCodeServer
	if raw[0] != '{' || json.Unmarshal(raw, &cur) != nil {
		out, err := setJSON(src, want, "mcp", ServerName)
		return out, []string{}, err
	}
	if cur.Type == "local" && slices.Equal(cur.Command, want[1].value.([]string)) && (cur.Enabled == nil || *cur.Enabled) {
		return nil, nil, nil
	}
	out = src
	for _, f := range want {
		if out, err = setJSON(out, f.value, "mcp", ServerName, f.key); err != nil {
			return nil, nil, err
		}
	}
	previous = cur.Command
	if previous == nil {
		previous = []string{}
	}
	return out, previous, nil
}

// openCodeRemove removes the stick server from an OpenCode configuration,
// and the "mcp" object when it is left empty. It returns nil when there is
// no stick server, and the command line of the one it removed.
func openCodeRemove(src []byte) (out []byte, previous []string, err error) {
	raw, found, err := getJSON(src, "mcp", ServerName)
	if err != nil || !found {
		return nil, nil, err
	}
	var cur openCodeServer
	if json.Unmarshal(raw, &cur) == nil {
		previous = cur.Command
	}
	if out, _, err = deleteJSON(src, "mcp", ServerName); err != nil {
		return nil, nil, err
	}
	if out, err = deleteEmpty(out, "mcp"); err != nil {
		return nil, nil, err
	}
	return out, previous, nil
}
