package cli

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"testing"
)

// 'stick version --json' names the module, the commit and its state, the Go
// version and the platform the binary was built from.
func TestVersionJSON(t *testing.T) {
	old := buildInfo
	t.Cleanup(func() { buildInfo = old })
	buildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "github.com/stickhq/stick", Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
				{Key: "vcs.time", Value: "2026-11-24T23:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}, true
	}
	code, out, errOut := run(t, "version", "--json")
	if code != 0 {
		t.Fatalf("version --json: %d %q", code, errOut)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"version": "v1.2.3", "module": "github.com/stickhq/stick", "commit": "0123456789abcdef0123456789abcdef01234567",
		"commit_time": "2026-11-24T23:00:00Z", "modified": true, "go_version": "go1.26.1", "platform": runtime.GOOS + "/" + runtime.GOARCH}
	if len(v) != len(want) {
		t.Fatalf("version --json = %v, want %v", v, want)
	}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s = %v, want %v", k, v[k], w)
		}
	}

	// The built binary: no revision recorded (the tests build it with
	// -buildvcs=false or outside a checkout) means no commit field, never a
	// made-up one.
	r := runBin(t, "", nil, "version", "--json")
	var got versionInfo
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
		t.Fatalf("binary version --json: %d %v %q", r.code, err, r.stdout)
	}
	if got.Module != "github.com/stickhq/stick" || got.GoVersion != runtime.Version() || got.Version == "" ||
		(got.Commit == "") != (got.Modified == nil) {
		t.Fatalf("binary version --json: %+v", got)
	}
}
