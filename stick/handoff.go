package stick

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Handoff is the structured state transfer that every release and pass
// carries: what the holder did, what the next holder should do, and where to
// look. It is stored verbatim in the event log and returned to the next
// holder when it claims the stick.
type Handoff struct {
	// Status says what was done, what was learned and what is unfinished. Required.
	Status string `json:"status"`
	// NextAction says what the recipient should do. Required.
	NextAction string `json:"next_action"`
	// Artifacts point the recipient at the files (and lines) to load first.
	Artifacts []Artifact `json:"artifacts,omitempty"`
	// OpenQuestions lists what the holder could not settle.
	OpenQuestions []string `json:"open_questions,omitempty"`
	// DoNot lists what is off-limits for the next holder.
	DoNot []string `json:"do_not,omitempty"`
}

// Artifact is a pointer into the workspace: a path, optionally an inclusive
// line range, the role it plays for the recipient and a short note.
type Artifact struct {
	// Path is absolute or workspace-relative.
	Path string `json:"path"`
	// Lines is an optional inclusive [start, end] range, 1-based.
	Lines []int `json:"lines,omitempty"`
	// Role says what the recipient should do with the artifact.
	Role Role `json:"role"`
	// Note is an optional remark.
	Note string `json:"note,omitempty"`
}

// Role says what a recipient should do with an artifact.
type Role string

// The artifact roles of the protocol.
const (
	RoleExamine Role = "examine"
	RoleReview  Role = "review"
	RoleEdit    Role = "edit"
	RoleContext Role = "context"
	RoleOutput  Role = "output"
)

// Roles lists every valid artifact role, in the order the protocol names them.
var Roles = []Role{RoleExamine, RoleReview, RoleEdit, RoleContext, RoleOutput}

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool {
	for _, v := range Roles {
		if r == v {
			return true
		}
	}
	return false
}

// Limits on handoff size, so one release cannot bloat every later read.
const (
	MaxHandoffText    = 64 << 10 // bytes in status or next_action
	MaxHandoffItem    = 4 << 10  // bytes in one question, do-not entry, path or note
	MaxHandoffEntries = 200      // artifacts, questions or do-not entries
)

// NewHandoffTemplate returns the static hint JoinPath returns: the shape of a
// good handoff, for harnesses to show their models. Each call returns a fresh
// copy, so callers may change it.
func NewHandoffTemplate() Handoff {
	return Handoff{
		Status:     "What I did: …\nWhat I learned: …\nOpen risks: …",
		NextAction: "The one concrete thing the next holder should do first.",
		Artifacts: []Artifact{
			{Path: "path/to/file.go", Lines: []int{10, 42}, Role: RoleEdit, Note: "why this range matters"},
		},
		OpenQuestions: []string{"A question you could not settle."},
		DoNot:         []string{"Something the next holder must not touch."},
	}
}

// Validate checks the handoff and returns an invalid_handoff error whose
// "field" detail names the first offending field (for example "next_action"
// or "artifacts[2].lines").
func (h *Handoff) Validate() error {
	if h == nil {
		return handoffErr("handoff", "a handoff is required: give at least status and next_action")
	}
	if err := checkText("status", h.Status, MaxHandoffText, true); err != nil {
		return err
	}
	if err := checkText("next_action", h.NextAction, MaxHandoffText, true); err != nil {
		return err
	}
	if len(h.Artifacts) > MaxHandoffEntries {
		return handoffErr("artifacts", "handoff.artifacts has %d entries; at most %d are allowed", len(h.Artifacts), MaxHandoffEntries)
	}
	for i, a := range h.Artifacts {
		if err := a.validate(fmt.Sprintf("artifacts[%d]", i)); err != nil {
			return err
		}
	}
	if err := checkList("open_questions", h.OpenQuestions); err != nil {
		return err
	}
	return checkList("do_not", h.DoNot)
}

func (a Artifact) validate(field string) error {
	if err := checkText(field+".path", a.Path, MaxHandoffItem, true); err != nil {
		return err
	}
	if a.Lines != nil {
		if len(a.Lines) != 2 {
			return handoffErr(field+".lines", "handoff.%s.lines must be two numbers [start, end], got %d", field, len(a.Lines))
		}
		if a.Lines[0] < 1 || a.Lines[1] < a.Lines[0] {
			return handoffErr(field+".lines", "handoff.%s.lines must satisfy 1 <= start <= end, got [%d, %d]", field, a.Lines[0], a.Lines[1])
		}
	}
	if !a.Role.Valid() {
		return handoffErr(field+".role", "handoff.%s.role must be one of %s, got %s", field, roleList(), Quote(string(a.Role)))
	}
	return checkText(field+".note", a.Note, MaxHandoffItem, false)
}

func checkList(field string, items []string) error {
	if len(items) > MaxHandoffEntries {
		return handoffErr(field, "handoff.%s has %d entries; at most %d are allowed", field, len(items), MaxHandoffEntries)
	}
	for i, s := range items {
		if err := checkText(fmt.Sprintf("%s[%d]", field, i), s, MaxHandoffItem, true); err != nil {
			return err
		}
	}
	return nil
}

func checkText(field, s string, max int, required bool) error {
	if problem := textProblem(s, max, required); problem != "" {
		return handoffErr(field, "handoff.%s %s", field, problem)
	}
	return nil
}

// textProblem says what is wrong with a free-text value ("" when nothing):
// empty when required, longer than max bytes, or not valid UTF-8.
func textProblem(s string, max int, required bool) string {
	switch {
	case required && strings.TrimSpace(s) == "":
		return "must be non-empty"
	case len(s) > max:
		return fmt.Sprintf("is %d bytes; at most %d are allowed", len(s), max)
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	}
	return ""
}

func handoffErr(field, format string, args ...any) *Error {
	return Errorf(CodeInvalidHandoff, format, args...).With("field", field).
		WithHint("fix %s and send the same call again; the stick is still yours", field)
}

func roleList() string {
	s := make([]string, len(Roles))
	for i, r := range Roles {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}
