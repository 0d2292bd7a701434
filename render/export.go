package render

import (
	"encoding/json"
	"io"

	"github.com/stickhq/stick/stick"
)

// TranscriptJSON writes a room's transcript as the JSON export for tools:
// the transcript as the library returns it, indented by two spaces, one
// value and a newline. encoding/json writes the room's text escaped (its
// controls, and <, > and & as \u003c, \u003e and \u0026), so no byte of it
// reads as markup or as a terminal's escape. 'stick export --json' and the
// page's export write it alike.
func TranscriptJSON(w io.Writer, t stick.Transcript) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}
