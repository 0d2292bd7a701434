package render

import (
	"fmt"

	"github.com/stickhq/stick/stick"
)

// DocNote describes a write to the document that an event records, for an
// event log a person reads: "doc v3, append to Decisions" for a doc event,
// "conclusion in doc v2" for a close that wrote one; "" for other events.
// What comes from the event's data is made safe with [Line].
func DocNote(e stick.Event) string {
	if d, ok := e.DocData(); ok && d.Version > 0 {
		note := fmt.Sprintf("doc v%d, %s", d.Version, Line(string(d.Op)))
		if d.Section != "" {
			note += " to " + Line(d.Section)
		}
		return note
	}
	if c, ok := e.CloseData(); ok && c.DocVersion > 0 {
		return fmt.Sprintf("conclusion in doc v%d", c.DocVersion)
	}
	return ""
}
