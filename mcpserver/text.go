package mcpserver

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// The texts below repeat every value a text-only client needs to continue.

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// span writes a duration the way people say it: 45m, 4h, 30s, 1h30m, 250ms.
func span(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	}
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// until says how long from now t is, for a model that cannot compare clock times.
func until(now, t time.Time) string {
	if !t.After(now) {
		return "now"
	}
	return "within " + span(t.Sub(now))
}

func nextAfterJoin(r stick.JoinResult) string {
	if r.Reclaimed {
		return fmt.Sprintf("catch up: call sync with room_id %s until has_more is false (it goes on from your cursor), and read_room_doc; then call wait_for_turn with room_id %s; work only when it says your_turn", r.RoomID, r.RoomID)
	}
	return fmt.Sprintf("call wait_for_turn with room_id %s; work only when it says your_turn", r.RoomID)
}

// nextAfterWait is the next step after a wait's result r; kept says
// whether the server keeps a holder's lease alive between its calls (a
// stdio server does, and a hub for a member behind a proxy; for any other
// it cannot: it sees no process).
func nextAfterWait(r stick.WaitResult, now time.Time, kept bool) string {
	switch r.Status {
	case stick.YourTurn:
		if !kept {
			return fmt.Sprintf("read the handoff, then work; your calls in the room renew your lease, and nothing renews it between them: when you make none, call heartbeat(room_id %s, lease_id %s, expected_turn_id %d), first due %s; finish with release_stick and a truthful handoff",
				r.RoomID, r.LeaseID, r.TurnID, until(now, *r.NextHeartbeatAt))
		}
		return fmt.Sprintf("read the handoff, then work; your calls in the room renew your lease and this server keeps it alive between them (heartbeat(room_id %s, lease_id %s, expected_turn_id %d) renews it explicitly, first due %s); finish with release_stick and a truthful handoff",
			r.RoomID, r.LeaseID, r.TurnID, until(now, *r.NextHeartbeatAt))
	case stick.TakeoverAvailable:
		return fmt.Sprintf("%s: if the work should go on, call takeover_stick(room_id %s, expected_turn_id %d, reason); otherwise call wait_for_turn again",
			takeoverWhy(r), r.RoomID, r.TurnID)
	case stick.Closed:
		return "the room is closed; join_path again to start a new room if there is more to do"
	case stick.Interrupted:
		return fmt.Sprintf("read the addressed notes and answer with append_note(to ...) if asked; then call wait_for_turn(room_id %s) again", r.RoomID)
	}
	return fmt.Sprintf("do no shared work; call wait_for_turn(room_id %s, cursor %s) again", r.RoomID, r.Cursor)
}

// takeoverWhy explains a takeover reason in words.
func takeoverWhy(r stick.WaitResult) string {
	switch stick.TakeoverReason(r.Reason) {
	case stick.ReasonClaimTimeout:
		return "the reserved recipient " + r.ReservedFor + " did not claim the stick in time"
	case stick.ReasonOwnerTimeout:
		return "the holder " + r.CurrentOwner + " went silent past its lease (it may still be working)"
	case stick.ReasonOwnerGone:
		return "the holder " + r.CurrentOwner + "'s process has exited"
	case stick.ReasonRecipientGone:
		return "the reserved recipient " + r.ReservedFor + "'s process has exited"
	}
	return r.Reason
}

func nextAfterRelease(r stick.ReleaseResult) string {
	if r.ReservedFor == "" {
		return fmt.Sprintf("no other member is active or away, so the stick is free; if there is more to do, wait_for_turn(room_id %s) gives it back to you (with your own handoff), otherwise stop or leave_path", r.RoomID)
	}
	return fmt.Sprintf("stop working on shared files; call wait_for_turn(room_id %s) to wait for your next turn", r.RoomID)
}

func textListRooms(o listRoomsOut) string {
	if len(o.Rooms) == 0 {
		return "no rooms around " + o.ContextPath + "; join_path creates one"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d room(s) around %s:", len(o.Rooms), o.ContextPath)
	for _, r := range o.Rooms {
		fmt.Fprintf(&b, "\n- room_id %s %s: %s, turn %d, %d/%d members active", r.RoomID, stick.Where(r.CanonicalPath, r.RoomName), r.State, r.TurnID, r.ActiveMembers, r.Members)
		if r.AwayMembers > 0 {
			fmt.Fprintf(&b, " (%d of them away)", r.AwayMembers)
		}
		if r.Owner != "" {
			fmt.Fprintf(&b, ", held by %s", r.Owner)
		}
		if r.ReservedFor != "" {
			fmt.Fprintf(&b, ", reserved for %s", r.ReservedFor)
		}
	}
	return b.String()
}

func textJoin(o joinOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "joined room_id %s %s as agent_id %s (room %s, turn %d, %s).",
		o.RoomID, stick.Where(o.CanonicalPath, o.RoomName), o.AgentID, o.Room.State, o.Room.TurnID, render.Count(len(o.Room.Members), "member"))
	switch {
	case o.FoundAgain:
		fmt.Fprintf(&b, "\nfound again: this host recorded member %s for your harness in this workspace, and its process has exited; you are that member again, with its place in the sequence, its sync cursor and any turn it held.", o.AgentID)
	case o.Reclaimed:
		fmt.Fprintf(&b, "\nreclaimed: you are member %s again, with its place in the sequence and its sync cursor.", o.AgentID)
	}
	if o.ReclaimToken != "" {
		fmt.Fprintf(&b, "\nreclaim_token=%s (keep it, and show it to no one: after a restart, join_path with this reclaim_token makes you agent_id %s again, with your place and sync cursor)",
			o.ReclaimToken, o.AgentID)
	}
	if o.Warning != "" {
		fmt.Fprintf(&b, "\nwarning: %s", o.Warning)
	}
	fmt.Fprintf(&b, "\npolicy: %s", textPolicy(o.Policy))
	fmt.Fprintf(&b, "\nnext: %s", o.NextStep)
	return b.String()
}

func textPolicy(p stick.Policy) string {
	return fmt.Sprintf("heartbeat every %s (heartbeat_interval_ms %d), lease %s, claim %s, presence %s, wait %s",
		span(p.HeartbeatInterval), p.HeartbeatInterval.Milliseconds(), span(p.OwnerLeaseTTL), span(p.ClaimTTL),
		span(p.PresenceTTL), span(p.WaitMaxWait))
}

func textWait(o waitOut) string {
	var b strings.Builder
	switch o.Status {
	case stick.YourTurn:
		fmt.Fprintf(&b, "your_turn in room_id %s as agent_id %s: turn_id %d, lease_id %s (%s), lease expires %s.",
			o.RoomID, o.AgentID, o.TurnID, o.LeaseID, o.Reason, render.PlainTime(*o.LeaseExpiresAt))
		if o.Handoff != nil {
			fmt.Fprintf(&b, "\nhandoff from %s:\n%s", o.FromAgentID, render.PlainHandoff(*o.Handoff))
		} else {
			b.WriteString("\nno handoff: this is the first turn of the room.")
		}
	case stick.TakeoverAvailable:
		fmt.Fprintf(&b, "takeover_available in room_id %s (%s, turn_id %d, state %s", o.RoomID, o.Reason, o.TurnID, o.RoomState)
		if o.CurrentOwner != "" {
			fmt.Fprintf(&b, ", holder %s", o.CurrentOwner)
		}
		if o.ReservedFor != "" {
			fmt.Fprintf(&b, ", reserved for %s", o.ReservedFor)
		}
		b.WriteString(").")
	case stick.Closed:
		fmt.Fprintf(&b, "closed: room_id %s is closed.", o.RoomID)
	case stick.Interrupted:
		fmt.Fprintf(&b, "interrupted in room_id %s: a note addressed to you asks for attention (state %s", o.RoomID, o.RoomState)
		if o.CurrentOwner != "" {
			fmt.Fprintf(&b, ", held by %s", o.CurrentOwner)
		}
		fmt.Fprintf(&b, "), cursor %s.", o.Cursor)
	default:
		fmt.Fprintf(&b, "not_yet in room_id %s (state %s", o.RoomID, o.RoomState)
		if o.CurrentOwner != "" {
			fmt.Fprintf(&b, ", held by %s", o.CurrentOwner)
		}
		if o.ReservedFor != "" {
			fmt.Fprintf(&b, ", reserved for %s", o.ReservedFor)
		}
		fmt.Fprintf(&b, "), cursor %s.", o.Cursor)
	}
	if len(o.Addressed) > 0 {
		fmt.Fprintf(&b, "\naddressed to you, unread (%d; sync marks them read):", len(o.Addressed))
		b.WriteString(render.PlainEvents(o.Addressed))
	}
	fmt.Fprintf(&b, "\nnext: %s", o.NextStep)
	return b.String()
}

func textHeartbeat(o heartbeatOut) string {
	return fmt.Sprintf("lease renewed in room_id %s, turn_id %d, until %s.\nnext: %s", o.RoomID, o.TurnID, render.PlainTime(o.LeaseExpiresAt), o.NextStep)
}

func textRelease(o releaseOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "turn %d ended in room_id %s; handoff recorded as event %d; ", o.TurnID, o.RoomID, o.EventSeq)
	if o.ReservedFor != "" {
		fmt.Fprintf(&b, "the stick is reserved for %s until %s.", o.ReservedFor, render.PlainTime(*o.ClaimExpiresAt))
	} else {
		b.WriteString("no other member is active or away, so the room is idle and the handoff waits for whoever claims next.")
	}
	fmt.Fprintf(&b, "\nnext: %s", o.NextStep)
	return b.String()
}

func textTakeover(o takeoverOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "took over room_id %s as agent_id %s (%s): turn_id %d, lease_id %s, lease expires %s; heartbeat %s.",
		o.RoomID, o.AgentID, o.Reason, o.TurnID, o.LeaseID, render.PlainTime(o.LeaseExpiresAt), until(o.now, o.NextHeartbeatAt))
	if o.Revoked != "" {
		fmt.Fprintf(&b, "\nrevoked: %s", o.Revoked)
	}
	if h := o.RecentHandoff; h != nil && h.Handoff != nil {
		fmt.Fprintf(&b, "\nmost recent handoff (event %d, %s from %s to %s):\n%s", h.Seq, h.Type, h.From, h.To, render.PlainHandoff(*h.Handoff))
	}
	fmt.Fprintf(&b, "\nnext: %s", o.NextStep)
	return b.String()
}

func textState(r stick.RoomStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "room_id %s %s: %s, turn %d", r.RoomID, stick.Where(r.CanonicalPath, r.RoomName), r.State, r.TurnID)
	if r.Owner != "" {
		fmt.Fprintf(&b, ", held by %s", r.Owner)
		if r.LeaseExpires != nil {
			fmt.Fprintf(&b, " (lease until %s)", render.PlainTime(*r.LeaseExpires))
		}
	}
	if r.ReservedFor != "" {
		fmt.Fprintf(&b, ", reserved for %s", r.ReservedFor)
		if r.ClaimExpires != nil {
			fmt.Fprintf(&b, " (claim until %s)", render.PlainTime(*r.ClaimExpires))
		}
	}
	if r.Takeover != "" {
		fmt.Fprintf(&b, "; takeover available (%s)", r.Takeover)
	}
	if r.Concluder != "" {
		fmt.Fprintf(&b, "; %s is responsible for the conclusion", r.Concluder)
	}
	b.WriteString(textMembers("", r.Members))
	if h := r.PendingHandoff; h != nil && h.Handoff != nil {
		fmt.Fprintf(&b, "\npending handoff (event %d from %s):\n%s", h.Seq, h.From, render.PlainHandoff(*h.Handoff))
	}
	fmt.Fprintf(&b, "\nlast event %d; policy: %s", r.LastEventSeq, textPolicy(r.Policy))
	return b.String()
}

func textMembers(room string, ms []stick.MemberStatus) string {
	var b strings.Builder
	if room != "" {
		fmt.Fprintf(&b, "member sequence of room_id %s:", room)
	} else {
		b.WriteString("\nmembers:")
	}
	for _, m := range ms {
		fmt.Fprintf(&b, "\n  %d. %s", m.Ordinal, m.AgentID)
		if m.Handle != "" {
			fmt.Fprintf(&b, " @%s", m.Handle)
		}
		fmt.Fprintf(&b, ": %s, last seen %s ago", m.Status, (time.Duration(m.IdleMS) * time.Millisecond).Round(time.Second))
		if m.TurnRole != "" {
			fmt.Fprintf(&b, " (%s)", m.TurnRole)
		}
		if m.Standby {
			b.WriteString(" (standby)")
		}
	}
	if len(ms) > 0 {
		b.WriteString("\n(active and away members can receive the stick; away: a person not waiting right now)")
	}
	return b.String()
}

func textEvents(p stick.EventPage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d event(s), cursor %d", len(p.Events), p.Cursor)
	if p.HasMore {
		b.WriteString(" (more: call again with after = cursor)")
	}
	b.WriteString(render.PlainEvents(p.Events))
	return b.String()
}

// textSync summarises a sync: what was sent, what arrived, the cursor.
func textSync(r stick.SyncResult) string {
	var b strings.Builder
	for _, s := range r.Sent {
		if s.Duplicate {
			fmt.Fprintf(&b, "already sent as event %d (client_message_id %s)\n", s.Event.Seq, s.Event.ClientMessageID)
		} else {
			fmt.Fprintf(&b, "sent %s as event %d\n", s.Event.MessageType, s.Event.Seq)
		}
	}
	fmt.Fprintf(&b, "%s: %d new event(s) in room_id %s, cursor %d", r.Status, len(r.Received)+len(r.Addressed), r.RoomID, r.Cursor)
	if r.HasMore {
		b.WriteString(" (more: call sync again)")
	}
	if len(r.Addressed) > 0 {
		fmt.Fprintf(&b, "\naddressed to you (%d):", len(r.Addressed))
		b.WriteString(render.PlainEvents(r.Addressed))
		if len(r.Received) > 0 {
			b.WriteString("\nthe rest:")
		}
	}
	b.WriteString(render.PlainEvents(r.Received))
	return b.String()
}

// textAddressing says where a posted note went: its channel, when not the
// default, and its recipients.
func textAddressing(e stick.Event) string {
	var b strings.Builder
	if e.Channel != "" {
		b.WriteString(" #" + e.Channel)
	}
	if len(e.Recipients) > 0 {
		b.WriteString(", addressed to " + strings.Join(e.Recipients, ", "))
		if e.Interrupt {
			b.WriteString(" (interrupting their wait)")
		}
	}
	return b.String()
}

func textClose(r stick.CloseResult) string {
	if r.ConclusionRequested {
		return fmt.Sprintf("asked to close room_id %s: the stick went to %s, who is responsible for the room's conclusion, with a handoff asking for it (event %d); the room stays open until %s closes it with the conclusion",
			r.RoomID, r.Concluder, r.EventSeq, r.Concluder)
	}
	verb := "closed"
	if r.Revised {
		verb = "revised the conclusion of"
	}
	text := fmt.Sprintf("%s room_id %s (event %d, closed at %s); the log stays readable", verb, r.RoomID, r.EventSeq, render.PlainTime(r.ClosedAt))
	if r.DocVersion != 0 {
		text += fmt.Sprintf("\nthe conclusion was written to the document's %s section, version %d (read_room_doc)", stick.ConclusionSection, r.DocVersion)
	}
	return text
}

func nextAfterReadDoc(d stick.Document, asked int64) string {
	switch {
	case asked != 0:
		return fmt.Sprintf("this is version %d as asked; before update_room_doc, read the current one (read_room_doc without version) and pass its version as expected_version", d.Version)
	case d.Version == 0:
		return fmt.Sprintf("nobody has written it yet: start it with update_room_doc(room_id %s, content, expected_version 0), or add a part with append_room_doc(room_id %s, text, section)", d.RoomID, d.RoomID)
	}
	return fmt.Sprintf("to rewrite it, edit this content and call update_room_doc(room_id %s, content, expected_version %d); to record a decision or finding, append_room_doc(room_id %s, text, section \"Decisions\")",
		d.RoomID, d.Version, d.RoomID)
}

func nextAfterDocWrite(v stick.DocVersion) string {
	if v.Op == stick.DocAppend {
		// The appender has not seen the rest of this version: others may
		// have written, and the server chose where the text went.
		return fmt.Sprintf("the document is at version %d; before any update_room_doc, read it with read_room_doc (an append does not show you the whole document)", v.Version)
	}
	return fmt.Sprintf("the document is at version %d, the content you sent; a later update_room_doc from it passes expected_version %d", v.Version, v.Version)
}

func textReadDoc(o docOut) string {
	return render.PlainDocument(o.Document) + "\nnext: " + o.NextStep
}

func textDocWrite(o docVersionOut, unchanged bool) string {
	if unchanged {
		return fmt.Sprintf("the document of room_id %s is unchanged: the content equals version %d, so nothing was written.\nnext: %s", o.RoomID, o.Version, o.NextStep)
	}
	return fmt.Sprintf("the document of room_id %s is now %s.\nnext: %s", o.RoomID, render.PlainDocVersion(o.DocVersion), o.NextStep)
}

func textDocHistory(o docHistoryOut) string {
	var b strings.Builder
	if len(o.Versions) == 0 {
		fmt.Fprintf(&b, "the document of room_id %s was never written (version 0).", o.RoomID)
	} else {
		fmt.Fprintf(&b, "the document of room_id %s has %s, oldest first:", o.RoomID, render.Count(len(o.Versions), "version"))
		for _, v := range o.Versions {
			fmt.Fprintf(&b, "\n  %s", render.PlainDocVersion(v))
		}
	}
	fmt.Fprintf(&b, "\nnext: %s", o.NextStep)
	return b.String()
}

func textSearch(o searchOut) string {
	var b strings.Builder
	if len(o.Hits) == 0 {
		fmt.Fprintf(&b, "no hits for %q.", o.Query)
	} else {
		fmt.Fprintf(&b, "%s for %q, best first:", render.Count(len(o.Hits), "hit"), o.Query)
	}
	for i, h := range o.Hits {
		where := h.RoomPath
		if h.RoomName != "" {
			where = "named " + h.RoomName
		}
		fmt.Fprintf(&b, "\n%d. room_id %s (%s): ", i+1, h.RoomID, where)
		if h.EventSeq != 0 {
			fmt.Fprintf(&b, "event %d, %s", h.EventSeq, h.Type)
		} else {
			fmt.Fprintf(&b, "%s version %d", h.Type, h.DocVersion)
			if h.Section != "" {
				fmt.Fprintf(&b, ", section %s", h.Section)
			}
		}
		if h.From != "" {
			fmt.Fprintf(&b, " by %s", h.From)
		}
		fmt.Fprintf(&b, " at %s, score %.2f:\n    %s", render.PlainTime(h.CreatedAt), h.Score, strings.ReplaceAll(h.Snippet, "\n", "\n    "))
	}
	fmt.Fprintf(&b, "\nnext: %s", o.NextStep)
	return b.String()
}
