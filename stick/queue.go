package stick

import "slices"

// Ahead counts the turns that come before agentID's, as st shows the room:
// the holder's (or, while the stick is reserved, the recipient's), then one
// for each member between it and agentID in sequence order who would get
// the stick first, that is who takes turns (active or away, and not on
// standby; inactive and gone members, and those on standby, are passed
// over). It is 0 when agentID holds the stick, is
// reserved it, or nobody holds or is reserved it; 1 when agentID or the
// current member is not among st.Members. A prompt shows it as "2 ahead".
func (st RoomStatus) Ahead(agentID string) int {
	cur := st.Owner
	if cur == "" {
		cur = st.ReservedFor
	}
	if cur == "" || cur == agentID {
		return 0
	}
	ci, mi := -1, -1
	for i, m := range st.Members {
		switch m.AgentID {
		case cur:
			ci = i
		case agentID:
			mi = i
		}
	}
	if ci < 0 || mi < 0 {
		return 1
	}
	n := 1
	for i := (ci + 1) % len(st.Members); i != mi; i = (i + 1) % len(st.Members) {
		if inTurn(st.Members[i]) {
			n++
		}
	}
	return n
}

// Next is who the stick goes to after the current turn, as st shows the
// room: the reserved recipient, else the first member after the holder in
// sequence order that takes turns (as Ahead counts them) and is not one
// of except; "" when nobody holds the stick or no such member is left. It
// is who a release would reserve it for, judged from the statuses st
// shows; a console passes itself in except, as it takes no turns.
func (st RoomStatus) Next(except ...string) string {
	if st.ReservedFor != "" {
		return st.ReservedFor
	}
	at := -1
	for i, m := range st.Members {
		if m.AgentID == st.Owner {
			at = i
		}
	}
	if st.Owner == "" || at < 0 {
		return ""
	}
	for k := 1; k < len(st.Members); k++ {
		if m := st.Members[(at+k)%len(st.Members)]; inTurn(m) && !slices.Contains(except, m.AgentID) {
			return m.AgentID
		}
	}
	return ""
}

// inTurn reports whether m gets the stick when the sequence comes to it:
// it takes turns and is not on standby.
func inTurn(m MemberStatus) bool { return takesTurns(m.Status) && !m.Standby }
