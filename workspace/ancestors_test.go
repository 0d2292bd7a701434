package workspace

import (
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

func TestAncestors(t *testing.T) {
	tests := []struct {
		path, root string
		want       []string
	}{
		{"/repo/a/b", "/repo", []string{"/repo/a/b", "/repo/a", "/repo"}},
		{"/repo", "/repo", []string{"/repo"}},
		{"/x", "/repo", []string{"/x"}},
		{"/repo2/x", "/repo", []string{"/repo2/x"}}, // prefix trap
		{"/repo", "/repo/a", []string{"/repo"}},     // root below path
		{"/a/b", "/", []string{"/a/b", "/a", "/"}},
		{"/", "/", []string{"/"}},
		{"/repo/a/", "/repo/", []string{"/repo/a", "/repo"}}, // cleaned
		{"/repo//a/./b/..", "/repo", []string{"/repo/a", "/repo"}},
		{"", "/repo", []string{""}},
		{"/repo/a", "", []string{"/repo/a"}},
		{"repo/a", "repo", []string{"repo/a"}}, // relative: not canonical
	}
	for _, tt := range tests {
		path, root := native(tt.path), native(tt.root)
		var want []string
		for _, w := range tt.want {
			want = append(want, native(w))
		}
		if got := Ancestors(path, root); !reflect.DeepEqual(got, want) {
			t.Errorf("Ancestors(%q, %q) = %q, want %q", path, root, got, want)
		}
	}
}

// native turns a slash-separated test path into this system's form; on
// Windows a rooted path gets drive C: so that it is absolute.
func native(p string) string {
	p = filepath.FromSlash(p)
	if runtime.GOOS == "windows" && len(p) > 0 && p[0] == '\\' {
		p = "C:" + p
	}
	return p
}

func TestAncestorsWindowsVolumes(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("volume names exist only on Windows")
	}
	tests := []struct {
		path, root string
		want       []string
	}{
		{`C:\repo\a`, `C:\`, []string{`C:\repo\a`, `C:\repo`, `C:\`}},
		{`D:\repo\a`, `C:\repo`, []string{`D:\repo\a`}},
		{`\\host\share\repo\a`, `\\host\share\repo`, []string{`\\host\share\repo\a`, `\\host\share\repo`}},
	}
	for _, tt := range tests {
		if got := Ancestors(tt.path, tt.root); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Ancestors(%q, %q) = %q, want %q", tt.path, tt.root, got, tt.want)
		}
	}
}
