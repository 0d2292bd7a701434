package stick_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// FuzzHandoffValidate feeds arbitrary JSON to handoff validation: it must
// never panic; a rejection is invalid_handoff naming a field; an accepted
// handoff satisfies every rule and survives the JSON round trip the event
// log does, verbatim.
func FuzzHandoffValidate(f *testing.F) {
	for _, s := range []string{
		`{"status":"did x","next_action":"do y"}`,
		`{"status":"s","next_action":"n","artifacts":[{"path":"a.go","lines":[1,2],"role":"edit","note":"n"}],"open_questions":["q"],"do_not":["d"]}`,
		`{"status":"","next_action":"n"}`,
		`{"status":"s","next_action":"n","artifacts":[{"path":"a","lines":[5,1],"role":"review"}]}`,
		`{"status":"s","next_action":"n","artifacts":[{"path":"a","lines":[1],"role":"nope"}]}`,
		`{"status":"s","next_action":"\u0000","do_not":[""]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var h stick.Handoff
		if json.Unmarshal(data, &h) != nil {
			return
		}
		err := h.Validate()
		if err != nil {
			var se *stick.Error
			if !errors.As(err, &se) || se.Code != stick.CodeInvalidHandoff {
				t.Fatalf("rejection must be invalid_handoff, got %v", err)
			}
			if f, _ := se.Details["field"].(string); f == "" || se.Message == "" {
				t.Fatalf("rejection must name the field: %+v", se)
			}
			return
		}
		if strings.TrimSpace(h.Status) == "" || strings.TrimSpace(h.NextAction) == "" {
			t.Fatalf("accepted a handoff without status or next_action: %+v", h)
		}
		for _, a := range h.Artifacts {
			if a.Path == "" || !a.Role.Valid() || (a.Lines != nil && (len(a.Lines) != 2 || a.Lines[0] < 1 || a.Lines[1] < a.Lines[0])) {
				t.Fatalf("accepted a bad artifact: %+v", a)
			}
		}
		b, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var back stick.Handoff
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(normal(back), normal(h)) {
			t.Fatalf("round trip changed the handoff: %+v -> %+v (%v)", h, back, err)
		}
	})
}

// normal maps empty slices to nil, as omitempty does.
func normal(h stick.Handoff) stick.Handoff {
	if len(h.Artifacts) == 0 {
		h.Artifacts = nil
	}
	for i := range h.Artifacts {
		if len(h.Artifacts[i].Lines) == 0 {
			h.Artifacts[i].Lines = nil
		}
	}
	if len(h.OpenQuestions) == 0 {
		h.OpenQuestions = nil
	}
	if len(h.DoNot) == 0 {
		h.DoNot = nil
	}
	return h
}
