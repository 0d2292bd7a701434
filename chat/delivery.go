package chat

import (
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// delivery is what the console knows of one recipient of a note it
// posted: only what the room's status reports of waking it. stick keeps
// no receipt of reading, so the console claims none.
type delivery struct {
	agent  string      // the recipient's agent id, as the room resolved it
	posted stick.Event // the note
	// woke is the recipient's wake status as first reported after the
	// note was posted; nil while none was.
	woke *stick.WakeStatus
}

// deliveriesOf starts the deliveries of a posted note, one per recipient
// the room resolved (none for a note to the whole room).
func deliveriesOf(e stick.Event) []*delivery {
	out := make([]*delivery, 0, len(e.Recipients))
	for _, id := range e.Recipients {
		out = append(out, &delivery{agent: id, posted: e})
	}
	return out
}

// observe records, for each delivery still waiting, the first wake the
// room reports of its recipient after the note was posted.
func (m *Model) observe() {
	for _, ds := range m.deliveries {
		for _, d := range ds {
			if d.woke != nil {
				continue
			}
			mem, ok := m.members[d.agent]
			if !ok || mem.Wake == nil || mem.Wake.LastAt == nil || mem.Wake.LastAt.Before(d.posted.CreatedAt) {
				continue
			}
			w := *mem.Wake
			d.woke = &w
		}
	}
}

// deliveryState says, in a few words, what the room reports of d: woken
// through a transport and how that went, or not woken and why.
func (m *Model) deliveryState(d *delivery) string {
	if w := d.woke; w != nil {
		if w.LastState == "queued" {
			return "woken via " + render.Line(w.LastTransport) + ": queued"
		}
		return "wake via " + render.Line(w.LastTransport) + ": " + render.Line(w.LastState)
	}
	mem, ok := m.members[d.agent]
	switch {
	case !m.haveStatus:
		return "not woken yet"
	case !ok:
		return "not woken (no longer a member)"
	case mem.Status == stick.MemberGone:
		return "not woken (gone)"
	case mem.Wake == nil || len(mem.Wake.Transports) == 0:
		return "not woken (no wake transport; " + render.Line(mem.Status) + ")"
	}
	return "not woken (waiting)"
}
