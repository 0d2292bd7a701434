package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestSwapCaseAndLowerName(t *testing.T) {
	tests := []struct{ in, swapped, lower string }{
		{"", "", ""},
		{"123-_.", "123-_.", "123-_."},
		{"abc", "ABC", "abc"},
		{"MiXeD", "mIxEd", "mixed"},
		{"Ünïcödé", "üNÏCÖDÉ", "ünïcödé"},
		{"日本", "日本", "日本"},
		{"A\xffb", "a\xffB", "a\xffb"}, // invalid UTF-8 is kept byte for byte
	}
	for _, tt := range tests {
		if got := swapCase(tt.in); got != tt.swapped {
			t.Errorf("swapCase(%q) = %q, want %q", tt.in, got, tt.swapped)
		}
		if got := lowerName(tt.in); got != tt.lower {
			t.Errorf("lowerName(%q) = %q, want %q", tt.in, got, tt.lower)
		}
	}
}

// expectInsensitive finds out independently whether dir ignores case by
// creating a probe directory and looking it up in another spelling.
func expectInsensitive(t *testing.T, dir string) bool {
	t.Helper()
	probe := filepath.Join(dir, "ProbeCase")
	if err := os.Mkdir(probe, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	a, err := os.Stat(probe)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.Stat(filepath.Join(dir, "pROBEcASE"))
	return err == nil && os.SameFile(a, b)
}

func TestProbeCase(t *testing.T) {
	base := tempBase(t)
	want := expectInsensitive(t, base)
	if runtime.GOOS == "linux" && want {
		t.Logf("temp dir %q is on a case-insensitive filesystem", base)
	}
	mkdirs(t, base, "Letters", "1234")

	got, decided := probeCase(base, "Letters")
	if !decided || got != want {
		t.Errorf("probeCase(Letters) = %v, %v; want %v, true", got, decided, want)
	}
	if _, decided := probeCase(base, "1234"); decided {
		t.Errorf("probeCase(1234) decided; a name without letters cannot tell")
	}
	if _, decided := probeCase(base, "Missing"); decided {
		t.Errorf("probeCase(Missing) decided; the probe entry must exist")
	}
}

func TestProbeCaseDistinctSpellings(t *testing.T) {
	base := tempBase(t)
	if expectInsensitive(t, base) {
		t.Skip("filesystem ignores case")
	}
	mkdirs(t, base, "dup", "DUP")
	if got, decided := probeCase(base, "dup"); got || !decided {
		t.Errorf("probeCase with dup and DUP both present = %v, %v; want false, true", got, decided)
	}
}

func TestInsensitiveAtCaches(t *testing.T) {
	base := tempBase(t)
	want := expectInsensitive(t, base)
	mkdirs(t, base, "Cached")
	if got := insensitiveAt(base, "Cached"); got != want {
		t.Errorf("insensitiveAt = %v, want %v", got, want)
	}
	key, ok := volumeKey(base)
	if !ok {
		t.Skip("no volume key on this system")
	}
	v, hit := caseCache.Load(key)
	if !hit || v != want {
		t.Errorf("cache[%q] = %v, %v; want %v, true", key, v, hit, want)
	}
	// A letterless name cannot probe, but the cached answer still holds.
	mkdirs(t, base, "42")
	if got := insensitiveAt(base, "42"); got != want {
		t.Errorf("insensitiveAt(42) = %v, want cached %v", got, want)
	}
}

func TestFoldPath(t *testing.T) {
	base := tempBase(t)
	insensitive := expectInsensitive(t, base)
	mkdirs(t, base, "Some/Deeper/DIR")
	in := filepath.Join(base, "Some", "Deeper", "DIR")
	want := in
	if insensitive {
		want = filepath.Join(base, "some", "deeper", "dir")
	}
	if got := foldPath(in); got != want {
		t.Errorf("foldPath(%q) = %q, want %q", in, got, want)
	}
	root := filepath.VolumeName(base) + string(filepath.Separator)
	if got := foldPath(root); !strings.EqualFold(got, root) {
		t.Errorf("foldPath(%q) = %q, want it unchanged up to case", root, got)
	}
}
