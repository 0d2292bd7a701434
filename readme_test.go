package skill_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README starts with what stick is, then the two commands exactly as
// they are run, then the tour; every relative link of the README and of
// docs/ reaches a file and, when it names one, a heading.
func TestREADMEStartAndLinks(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := regexp.MustCompile(`(?m)^## (.+)$`).FindAllStringSubmatch(string(readme), 3)
	if len(headings) < 2 || headings[0][1] != "The two commands" || headings[1][1] != "A five-minute tour" ||
		!strings.HasPrefix(string(readme), "# stick\n\n**stick** lets several coding agents") {
		t.Fatalf("the README does not start with what stick is, the two commands and the tour: %v", headings)
	}
	two := "```sh\ngo run ./cmd/stick demo     # run stick:"
	if !strings.Contains(string(readme), two) || !strings.Contains(string(readme), "\n./test.sh                   # run the tests:") {
		t.Fatal("the two commands are not in the README as they are run")
	}

	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md", "CHANGELOG.md")
	link := regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(src), -1) {
			target, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") {
				continue
			}
			path := f
			if target != "" {
				path = filepath.Join(filepath.Dir(f), target)
			}
			dst, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s links to %s, which does not exist", f, m[0])
				continue
			}
			if anchor != "" && !hasAnchor(string(dst), anchor) {
				t.Errorf("%s links to %s: no heading %q in %s", f, m[0], anchor, path)
			}
		}
	}
}

// hasAnchor reports whether a heading of the markdown src has the anchor
// GitHub gives it: lower case, spaces as hyphens, punctuation dropped.
func hasAnchor(src, anchor string) bool {
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(src, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		if b.String() == anchor {
			return true
		}
	}
	return false
}
