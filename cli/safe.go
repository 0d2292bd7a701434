package cli

import (
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// safeSummary is r made safe to print as text.
func safeSummary(r stick.RoomSummary) stick.RoomSummary {
	r.RoomID, r.CanonicalPath = render.Line(r.RoomID), render.Line(r.CanonicalPath)
	r.RoomKey, r.RoomName = render.Line(r.RoomKey), render.Line(r.RoomName)
	r.Owner, r.ReservedFor = render.Line(r.Owner), render.Line(r.ReservedFor)
	return r
}
