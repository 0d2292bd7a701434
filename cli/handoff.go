package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/stick"
)

// handoffFlags are the flags that compose a handoff on the command line.
type handoffFlags struct {
	status, next, file string
	artifacts          []string
	questions, doNot   []string
	fileText           *string // what --handoff gave, read once
}

func (f *handoffFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.status, "status", "", "what you did, what you learned, what is unfinished (required)")
	fl.StringVar(&f.next, "next-action", "", "what the next holder should do (required)")
	fl.StringArrayVar(&f.artifacts, "artifact", nil, "a file to look at: PATH[:START-END][=ROLE], ROLE one of "+roleList()+" (default examine); repeatable")
	fl.StringArrayVar(&f.questions, "question", nil, "an open question for the next holder; repeatable")
	fl.StringArrayVar(&f.doNot, "do-not", nil, "something the next holder must not do; repeatable")
	fl.StringVar(&f.file, "handoff", "", "read the handoff as JSON from FILE, or - for stdin; flags add to it")
}

// handoff builds the handoff from the flags. Relative artifact paths are
// taken from the current directory and stored relative to root (the room's
// path) when they lie below it.
func (f *handoffFlags) handoff(cmd *cobra.Command, root string) (stick.Handoff, error) {
	var h stick.Handoff
	if f.file != "" {
		if f.fileText == nil {
			data, err := fileArg(cmd, f.file, "handoff")
			if err != nil {
				return h, err
			}
			f.fileText = &data
		}
		data := *f.fileText
		dec := json.NewDecoder(strings.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil {
			return h, stick.Errorf(stick.CodeInvalidArgument, "--handoff %s is not a handoff in JSON: %v", f.file, err).With("field", "handoff").
				WithHint("expected {\"status\": …, \"next_action\": …, \"artifacts\": [{\"path\": …, \"lines\": [1, 9], \"role\": \"edit\"}], …}")
		}
	}
	if f.status != "" {
		h.Status = f.status
	}
	if f.next != "" {
		h.NextAction = f.next
	}
	for _, s := range f.artifacts {
		a, err := parseArtifact(s, root)
		if err != nil {
			return h, err
		}
		h.Artifacts = append(h.Artifacts, a)
	}
	h.OpenQuestions = append(h.OpenQuestions, f.questions...)
	h.DoNot = append(h.DoNot, f.doNot...)
	if h.Status == "" || h.NextAction == "" {
		field := "status"
		if h.Status != "" {
			field = "next_action"
		}
		return h, stick.Errorf(stick.CodeInvalidHandoff, "a handoff needs --status and --next-action").With("field", field).
			WithHint(`say what you did and what comes next, e.g. --status "fixed the parser; tests pass" --next-action "review cli/handoff.go"`)
	}
	return h, nil
}

// parseArtifact reads PATH[:START-END][=ROLE].
func parseArtifact(s, root string) (stick.Artifact, error) {
	bad := func(format string, args ...any) (stick.Artifact, error) {
		return stick.Artifact{}, stick.Errorf(stick.CodeInvalidArgument, "--artifact %s: %s", stick.Quote(s), fmt.Sprintf(format, args...)).
			With("field", "artifact").WithHint("write PATH, PATH:START-END or PATH:START-END=ROLE, e.g. --artifact cli/root.go:10-42=edit")
	}
	a := stick.Artifact{Role: stick.RoleExamine}
	rest := s
	if i := strings.LastIndexByte(rest, '='); i >= 0 {
		a.Role = stick.Role(rest[i+1:])
		rest = rest[:i]
		if !a.Role.Valid() {
			return bad("unknown role %s (roles: %s)", stick.Quote(string(a.Role)), roleList())
		}
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		if lo, hi, ok := strings.Cut(rest[i+1:], "-"); ok {
			start, err1 := strconv.Atoi(lo)
			end, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || start < 1 || end < start {
				return bad("lines must be START-END with 1 <= START <= END")
			}
			a.Lines = []int{start, end}
			rest = rest[:i]
		} else if n, err := strconv.Atoi(rest[i+1:]); err == nil {
			if n < 1 {
				return bad("line numbers start at 1")
			}
			a.Lines = []int{n, n}
			rest = rest[:i]
		}
	}
	if rest == "" {
		return bad("the path is empty")
	}
	a.Path = rest
	if !filepath.IsAbs(rest) {
		if abs, err := filepath.Abs(rest); err == nil {
			a.Path = abs
			if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				a.Path = filepath.ToSlash(rel)
			}
		}
	}
	return a, nil
}

func roleList() string {
	names := make([]string, len(stick.Roles))
	for i, r := range stick.Roles {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}
