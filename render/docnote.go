package render

import (
	"encoding/json"
	"fmt"

	"github.com/stickhq/stick/stick"
)

// DocNote describes a write to the document that an event records, for an
// event log a person reads: "doc v3, append to Decisions" for a doc event,
// "conclusion in doc v2" for a close that wrote one; "" for other events.
// What comes from the event's data is made safe with [Line].
func DocNote(e stick.Event) string {
	var d struct {
		Version    int64  `json:"version"`
		Op         string `json:"op"`
		Section    string `json:"section"`
		DocVersion int64  `json:"doc_version"`
	}
	if len(e.Data) == 0 || json.Unmarshal(e.Data, &d) != nil {
		return ""
	}
	switch {
	case e.Type == stick.EventDoc && d.Version > 0:
		note := fmt.Sprintf("doc v%d, %s", d.Version, Line(d.Op))
		if d.Section != "" {
			note += " to " + Line(d.Section)
		}
		return note
	case e.Type == stick.EventClose && d.DocVersion > 0:
		return fmt.Sprintf("conclusion in doc v%d", d.DocVersion)
	}
	return ""
}
