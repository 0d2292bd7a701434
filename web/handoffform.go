package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stickhq/stick/stick"
)

// The handoff form writes its lists one entry a line: open questions and
// do-not entries as they are, artifacts as PATH[:START[-END]] [ROLE]
// [NOTE]. What a line means is read here; whether the handoff is valid
// (lengths, counts, roles, ranges) the Service decides, as for every
// frontend.

// artifactSyntax says how to write an artifact line, for errors.
const artifactSyntax = "write one artifact a line: PATH, PATH:LINE or PATH:START-END, then optionally a role and a note, e.g. lex/lex.go:10-42 edit the main loop"

// entries splits a text area into its lines, each trimmed, blank ones
// dropped.
func entries(text string) []string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// unix writes a text area's line breaks as \n: browsers send \r\n.
func unix(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// parseArtifacts reads the artifacts text area, one artifact a line; a
// line it cannot read is invalid_handoff naming the line.
func parseArtifacts(text string) ([]stick.Artifact, error) {
	var out []stick.Artifact
	n := 0
	for line := range strings.SplitSeq(text, "\n") {
		n++
		if strings.TrimSpace(line) == "" {
			continue
		}
		a, problem := parseArtifact(strings.TrimSpace(line))
		if problem != "" {
			return nil, stick.Errorf(stick.CodeInvalidHandoff, "Artifacts, line %d (%s): %s.", n, stick.Quote(clip(line, 80)), problem).
				With("field", fmt.Sprintf("artifacts[%d]", len(out))).WithHint("%s; roles: %s", artifactSyntax, roleNames())
		}
		out = append(out, a)
	}
	return out, nil
}

// parseArtifact reads one artifact line, or says what is wrong with it.
func parseArtifact(line string) (stick.Artifact, string) {
	fields := strings.Fields(line)
	a := stick.Artifact{Path: fields[0], Role: stick.RoleExamine}
	if i := strings.LastIndexByte(a.Path, ':'); i >= 0 && i < len(a.Path)-1 {
		if lines, problem, ok := lineRange(a.Path[i+1:]); ok {
			if problem != "" {
				return a, problem
			}
			a.Path, a.Lines = a.Path[:i], lines
		}
	}
	if a.Path == "" {
		return a, "the path is empty"
	}
	if len(fields) > 1 {
		a.Role = stick.Role(strings.ToLower(fields[1]))
		if !a.Role.Valid() {
			return a, fmt.Sprintf("%s is no role (a note after the path needs a role before it)", stick.Quote(fields[1]))
		}
	}
	if len(fields) > 2 {
		_, rest, _ := strings.Cut(line, fields[0])
		_, rest, _ = strings.Cut(rest, fields[1])
		a.Note = strings.TrimSpace(rest)
	}
	return a, ""
}

// lineRange reads LINE or START-END after a path's last colon: ok is
// false when it is no number at all (the colon belongs to the path), and
// problem says what is wrong with a range that is one.
func lineRange(s string) (lines []int, problem string, ok bool) {
	lo, hi, isRange := strings.Cut(s, "-")
	start, err := strconv.Atoi(lo)
	if err != nil {
		return nil, "", false
	}
	end := start
	if isRange {
		if end, err = strconv.Atoi(hi); err != nil {
			return nil, "the lines must be START-END, two numbers", true
		}
	}
	if start < 1 || end < start {
		return nil, "the lines must satisfy 1 ≤ START ≤ END", true
	}
	return []int{start, end}, "", true
}

// roleNames lists the artifact roles.
func roleNames() string {
	names := make([]string, len(stick.Roles))
	for i, r := range stick.Roles {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

// clip cuts s to n characters for an error message.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
