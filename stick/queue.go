package stick

// Ahead counts the turns that come before agentID's, as st shows the room:
// the holder's (or, while the stick is reserved, the recipient's), then one
// for each member between it and agentID in sequence order who would get
// the stick first, that is who takes turns (active or away; inactive and
// gone members are passed over). It is 0 when agentID holds the stick, is
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
		if takesTurns(st.Members[i].Status) {
			n++
		}
	}
	return n
}
