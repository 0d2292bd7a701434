package stick

import (
	"strings"
	"testing"
)

func TestAppendUnder(t *testing.T) {
	for _, c := range []struct{ name, content, title, text, want string }{
		{"empty, no section", "", "", "first", "first\n"},
		{"end of document", "# Plan\n\nstep one", "", "step two\n\n", "# Plan\n\nstep one\n\nstep two\n"},
		{"list item after list item", "# Plan\n\n- one\n", "", "- two", "# Plan\n\n- one\n- two\n"},
		{"numbered items", "1. one", "", "2) two", "1. one\n2) two\n"},
		{"an open fence is closed", "# Plan\n", "", "see:\n```sh\nmake", "# Plan\n\nsee:\n```sh\nmake\n```\n"},
		{"new section in empty", "", "Decisions", "- keep v1", "## Decisions\n\n- keep v1\n"},
		{"new section at end", "# Plan\n\nintro\n\n\n", "Decisions", "- keep v1", "# Plan\n\nintro\n\n## Decisions\n\n- keep v1\n"},
		{"under existing, before next", "## Decisions\n\n- a\n\n## Risks\n\n- r\n", "decisions", "- b",
			"## Decisions\n\n- a\n- b\n\n## Risks\n\n- r\n"},
		{"under heading with no body", "## Decisions\n## Risks\n", "Decisions", "- a",
			"## Decisions\n\n- a\n\n## Risks\n"},
		{"last section", "# T\n\n## Log\n\none\n", "Log", "two", "# T\n\n## Log\n\none\n\ntwo\n"},
		{"level three stays inside", "## Log\n\none\n### detail\n\nmore\n## Next\n", "Log", "two",
			"## Log\n\none\n### detail\n\nmore\n\ntwo\n\n## Next\n"},
		{"heading in a fence is not a section", "```\n## Log\n```\n", "Log", "x", "```\n## Log\n```\n\n## Log\n\nx\n"},
		{"a longer fence is closed only by as long a fence", "# Notes\n\n````md\n```\n## Log\n````\n\n## Log\n\nreal entry\n\n## Next\n\nn\n", "Log", "NEW",
			"# Notes\n\n````md\n```\n## Log\n````\n\n## Log\n\nreal entry\n\nNEW\n\n## Next\n\nn\n"},
		{"tilde fences and info strings", "~~~\n## Log\n```\n~~~\n## Log\n", "Log", "x", "~~~\n## Log\n```\n~~~\n## Log\n\nx\n"},
		{"closing hashes", "## Log ##\n\na\n", "Log", "b", "## Log ##\n\na\n\nb\n"},
		{"an open fence in a section is closed", "## Plan\n\n- a\n\n## Risks\n", "Plan", "```\ncode", "## Plan\n\n- a\n\n```\ncode\n```\n\n## Risks\n"},
		{"not a heading without a space", "##Log\n", "Log", "b", "##Log\n\n## Log\n\nb\n"},
	} {
		if got := appendUnder(c.content, c.title, c.text); got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestReplaceSection(t *testing.T) {
	for _, c := range []struct{ name, content, want string }{
		{"empty", "", "## Conclusion\n\nshipped\n"},
		{"appended", "# Plan\n\nx\n", "# Plan\n\nx\n\n## Conclusion\n\nshipped\n"},
		{"replaced at end", "# Plan\n\n## Conclusion\n\nold\nolder\n", "# Plan\n\n## Conclusion\n\nshipped\n"},
		{"replaced in the middle", "## Conclusion\n\nold\n\n## Appendix\n\na\n", "## Conclusion\n\nshipped\n\n## Appendix\n\na\n"},
	} {
		if got := replaceSection(c.content, ConclusionSection, "shipped"); got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestSectionTitle(t *testing.T) {
	for in, want := range map[string]string{"": "", "Plan": "Plan", "## Plan": "Plan", "  ### Plan  ": "Plan", "Decisions ##": "Decisions", "C#": "C#"} {
		if got, err := sectionTitle(in); err != nil || got != want {
			t.Errorf("sectionTitle(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"##", "a\nb", string(make([]byte, MaxSectionLen+1)), "\xff"} {
		if _, err := sectionTitle(bad); ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("sectionTitle(%q) must be invalid_argument, got %v", bad, err)
		}
	}
}

func TestParagraphs(t *testing.T) {
	doc := "## Setup\n\n```sh\n# install the tools\n\nmake tools\n```\n\n#42 is the tracking issue\n\nThe cache is flaky.\nIt is.\n\n# Top\n"
	got := Paragraphs(doc)
	want := []Paragraph{
		{"Setup", "## Setup"},
		{"Setup", "```sh\n# install the tools\n\nmake tools\n```"},
		{"Setup", "#42 is the tracking issue"},
		{"Setup", "The cache is flaky.\nIt is."},
		{"Top", "# Top"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("paragraph %d: got %q, want %q", i, got[i], want[i])
		}
	}
	long := strings.Repeat("- an item of a long list\n", 300)
	pieces := Paragraphs(long)
	if len(pieces) < 3 {
		t.Fatalf("a long list must be cut: %d pieces", len(pieces))
	}
	joined := ""
	for _, p := range pieces {
		if len(p.Text) > MaxParagraph {
			t.Fatalf("a piece of %d bytes", len(p.Text))
		}
		joined += p.Text + "\n"
	}
	if joined != long {
		t.Fatal("the pieces must cover the paragraph exactly")
	}
	more := Paragraphs(long + "- one more\n")
	for i := range len(pieces) - 1 {
		if more[i] != pieces[i] {
			t.Fatalf("adding a line must change only the last piece (piece %d changed)", i)
		}
	}
}

// BenchmarkAppendUnderEarlySection appends to the first section of a 1 MB
// document: the cost of copying it once (it was quadratic in the lines
// after the section).
func BenchmarkAppendUnderEarlySection(b *testing.B) {
	doc := "## First\n\nx\n\n## Rest\n\n" + strings.Repeat("a line of the rest of the document\n", 30000)
	for b.Loop() {
		appendUnder(doc, "First", "y")
	}
}

func TestNestedConclusion(t *testing.T) {
	in := "Shipped.\n\n## Details\n\n# Why\n```\n## not a heading\n```\n### kept\n"
	want := "Shipped.\n\n#### Details\n\n### Why\n```\n## not a heading\n```\n##### kept\n"
	if got := nested(in); got != want {
		t.Fatalf("got %q", got)
	}
	doc := replaceSection("# Plan\n\n## Appendix\n\na\n", ConclusionSection, nested(in))
	again := replaceSection(doc, ConclusionSection, nested("Revised."))
	if again != "# Plan\n\n## Appendix\n\na\n\n## Conclusion\n\nRevised.\n" {
		t.Fatalf("a revised conclusion must replace all of the first, headings included: %q", again)
	}
}

// TestConclusionWithOpenFence: a conclusion that leaves a fence open does
// not swallow the sections after it, so revising it keeps them.
func TestConclusionWithOpenFence(t *testing.T) {
	doc := "# Plan\n\n## Conclusion\n\n(to be written)\n\n## Appendix\n\nimportant notes\n"
	first := replaceSection(doc, ConclusionSection, nested("We stopped here:\n```sh\nmake test\n"))
	revised := replaceSection(first, ConclusionSection, nested("Revised conclusion."))
	if revised != "# Plan\n\n## Conclusion\n\nRevised conclusion.\n\n## Appendix\n\nimportant notes\n" {
		t.Fatalf("got %q", revised)
	}
	twice := appendUnder(appendUnder("## Risks\n\n- r\n", "Plan", "see:\n```\ncode\n"), "Risks", "- s")
	if strings.Count(twice, "## Risks") != 1 {
		t.Fatalf("an open fence must not hide a section from later appends: %q", twice)
	}
}
