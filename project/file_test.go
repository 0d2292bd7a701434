package project_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/project"
	"github.com/stickhq/stick/stick"
)

func TestParseReadsChannelsAndRetention(t *testing.T) {
	specs, err := project.Parse([]byte(`{"$schema": "` + stick.ProjectFileSchema + `", "channels": [
		{"name": "review", "description": "Code review", "maxMessages": 500, "maxAge": "7d"},
		{"name": "ci", "description": "CI results", "maxBytes": 4096, "maxAge": "90m"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []stick.ChannelSpec{
		{Name: "review", Description: "Code review", MaxMessages: 500, MaxAge: 7 * 24 * time.Hour},
		{Name: "ci", Description: "CI results", MaxBytes: 4096, MaxAge: 90 * time.Minute},
	}
	if len(specs) != 2 || specs[0] != want[0] || specs[1] != want[1] {
		t.Fatalf("specs = %+v, want %+v", specs, want)
	}
}

func TestParseRefusesBadFiles(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"duplicate", `{"channels": [{"name": "a", "description": "x"}, {"name": "a", "description": "y"}]}`, "declared twice"},
		{"bad name", `{"channels": [{"name": "Review", "description": "x"}]}`, "not a channel name"},
		{"no description", `{"channels": [{"name": "a"}]}`, "needs a description"},
		{"unknown field", `{"channels": [], "namespace": "x"}`, `unknown field "namespace"`},
		{"bad age", `{"channels": [{"name": "a", "description": "x", "maxAge": "1 week"}]}`, "maxAge"},
		{"small bytes", `{"channels": [{"name": "a", "description": "x", "maxBytes": 10}]}`, "maxBytes must be at least 1024"},
		{"zero messages", `{"channels": [{"name": "a", "description": "x", "maxMessages": 0}]}`, "maxMessages must be at least 1"},
		{"not json", `{"channels": [`, "not a valid project file"},
		{"wrong type", `{"channels": {"name": "a"}}`, "must be a list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := project.Parse([]byte(c.file))
			if stick.ErrorCode(err) != stick.CodeInvalidArgument || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want invalid_argument containing %q", err, c.want)
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	if _, found, err := project.Load(dir); found || err != nil {
		t.Fatalf("no file: found %v, err %v", found, err)
	}
	path := filepath.Join(dir, stick.ProjectFile)
	if err := os.WriteFile(path, []byte(`{"channels": [{"name": "a b", "description": "x"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, found, err := project.Load(dir)
	if !found || err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "channels[0].name") {
		t.Fatalf("found %v, err %v: want the file's path and the field", found, err)
	}
}

// The published schema states the rules Parse applies.
func TestSchemaAgreesWithParse(t *testing.T) {
	data, err := os.ReadFile("../docs/stick.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		ID         string `json:"$id"`
		Properties struct {
			Channels struct {
				MaxItems int `json:"maxItems"`
				Items    struct {
					Required   []string `json:"required"`
					Properties map[string]struct {
						Pattern   string `json:"pattern"`
						MaxLength int    `json:"maxLength"`
						Minimum   int64  `json:"minimum"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"channels"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	ch := schema.Properties.Channels
	p := ch.Items.Properties
	switch {
	case schema.ID != stick.ProjectFileSchema:
		t.Errorf("$id %q, want %q", schema.ID, stick.ProjectFileSchema)
	case ch.MaxItems != stick.MaxChannels:
		t.Errorf("maxItems %d, want %d", ch.MaxItems, stick.MaxChannels)
	case p["name"].Pattern != "^[a-z0-9-]+$" || p["name"].MaxLength != stick.MaxChannelNameLen:
		t.Errorf("name %+v", p["name"])
	case p["description"].MaxLength != stick.MaxChannelDescriptionLen:
		t.Errorf("description %+v", p["description"])
	case p["maxBytes"].Minimum != stick.MinChannelBytes || p["maxMessages"].Minimum != 1:
		t.Errorf("limits %+v %+v", p["maxBytes"], p["maxMessages"])
	case strings.Join(ch.Items.Required, ",") != "name,description":
		t.Errorf("required %v", ch.Items.Required)
	}
	for name := range p {
		if !strings.Contains(`{"name":"a","description":"b","maxMessages":1,"maxBytes":1024,"maxAge":"1h"}`, `"`+name+`"`) {
			t.Errorf("schema property %s is not one Parse reads", name)
		}
	}
	if _, err := project.Parse([]byte(`{"channels":[{"name":"a","description":"b","maxMessages":1,"maxBytes":1024,"maxAge":"1h"}]}`)); err != nil {
		t.Errorf("a file using every property: %v", err)
	}
}
