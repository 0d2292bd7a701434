package web

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// rosterView is a room's roster as the page shows it (templates/
// roster.html), its texts made safe: the page renders it, and the live
// stream sends it again whenever it changes.
type rosterView struct {
	Holder, Reserved, Concluder string
	// Lease is the end of the holder's lease, nil with no holder; Claim
	// the end of the reserved recipient's time to claim. The page writes
	// them as times, which a script counts down.
	Lease, Claim *deadline
	// Takeover is why takeover is open, "" when it is not.
	Takeover string
	Members  []memberRow
	// Sig names what the roster shows, so a page swaps in only a roster
	// that differs.
	Sig string
}

// deadline is a time the roster counts down to.
type deadline struct {
	At   time.Time
	Over bool
}

// memberRow is one member of the roster.
type memberRow struct {
	AgentID, DisplayName, Kind, Status string
	// Handle is the member's handle, "" for none; Standby marks a member
	// on standby, and Woken is how its last wake went ("" for none).
	Handle, Woken             string
	Holder, Reserved, Standby bool
	LastSeen                  time.Time
}

// rosterOf makes the roster of st as read at now.
func rosterOf(st stick.RoomStatus, now time.Time) rosterView {
	st = render.SafeStatus(st)
	v := rosterView{Holder: st.Owner, Reserved: st.ReservedFor, Concluder: st.Concluder, Takeover: render.Line(string(st.Takeover))}
	if st.Owner != "" && st.LeaseExpires != nil {
		v.Lease = &deadline{At: *st.LeaseExpires, Over: !now.Before(*st.LeaseExpires)}
	}
	if st.ReservedFor != "" && st.ClaimExpires != nil {
		v.Claim = &deadline{At: *st.ClaimExpires, Over: !now.Before(*st.ClaimExpires)}
	}
	for _, m := range st.Members {
		row := memberRow{AgentID: m.AgentID, DisplayName: m.DisplayName, Kind: render.Line(string(m.Kind)),
			Status: m.Status, Holder: m.TurnRole == "holder", Reserved: m.TurnRole == "reserved", LastSeen: m.LastSeenAt,
			Handle: m.Handle, Standby: m.Standby}
		if m.Wake != nil {
			row.Woken = m.Wake.LastState
		}
		v.Members = append(v.Members, row)
	}
	v.Sig = signature(v)
	return v
}

// signature is a short digest of what a fragment of the page shows.
func signature(parts ...any) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// shownSig is the signature a page says it shows (a query parameter), ""
// unless it is one signature could have made.
func shownSig(s string) string {
	if len(s) != 16 {
		return ""
	}
	if _, err := hex.DecodeString(s); err != nil {
		return ""
	}
	return s
}
