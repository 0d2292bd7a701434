package render

import "github.com/stickhq/stick/stick"

// Removal says in words who removed the member of a leave event and why
// ("removed by ana: done for today", "… whose process was gone"), made
// safe to print; "" for any other event.
func Removal(e stick.Event) string {
	d, ok := e.RemovedData()
	if !ok {
		return ""
	}
	s := "removed by " + Line(d.By)
	if d.Gone {
		s += ", its process gone"
	}
	if d.HeldTurn != 0 {
		s += ", losing the stick"
	}
	if d.Reason != "" {
		s += ": " + Line(d.Reason)
	}
	return s
}
