package stick

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/workspace"
)

// JoinRequest asks to join the room for a path, or the room of a name.
type JoinRequest struct {
	// Path is the context path: any file or directory in the workspace.
	Path string
	// Name joins the open room people named so instead of the room of a
	// path, and creates it when there is none: a team's session, found by
	// its name from anywhere. It follows RoomNamePattern; give either Path
	// or Name.
	Name string
	// RoomID joins the open room of that id instead (see byID): a room a
	// reader found in a list or on a hub's page, whatever it was made by.
	// It never creates a room; give only one of Path, Name and RoomID.
	RoomID string
	// ForceNew creates a nested room at Path itself even when an ancestor room exists.
	ForceNew bool
	// Conclude, with Name, makes the caller responsible for the room's
	// conclusion (Room.Concluder) when this join creates the room. A join
	// of a room that exists leaves its concluder as it is, so every member
	// of a team may join with it and the first to come is the one:
	// JoinResult.Room says who is.
	Conclude bool
	// AgentIDOverride replaces the caller's derived identity (tests and debugging); it is flagged in the join event.
	// An id that names a member of the room also needs that member's ReclaimToken.
	AgentIDOverride string
	// ReclaimToken, from an earlier JoinResult, makes the caller that member
	// again, from a new process: same agent id, sync cursor and place in the
	// sequence.
	ReclaimToken string
	// ReclaimIfGone lists reclaim tokens a frontend recorded on this host for
	// members the caller's harness joined as in this workspace before a
	// restart, most preferred first. A token here counts only while its
	// member's recorded process is proven gone: a live member, or one whose
	// liveness is unknown, is never taken over. Without an agent id override
	// the join becomes the first such member, unless the caller's own agent
	// id is a member of the room already; with an override naming a member,
	// such a token of that member proves the name as ReclaimToken does. It
	// is ignored with ReclaimToken and for a caller without process facts.
	ReclaimIfGone []string
	// Held lists the memberships earlier joins gave this caller through
	// the frontend, one per room at most: a frontend that keeps a caller's
	// memberships (an MCP connection, a hub's session) passes them on every
	// join, so every frontend reclaims alike. Two rules use them. A join
	// whose AgentIDOverride names a member of the room it lands in, which
	// only that member's reclaim token may join as, is proven by the token
	// held for that name in that room, as if it were ReclaimToken. And a
	// join that becomes another member (JoinResult.Reclaimed) while the
	// caller's own agent id is the member it held in the room makes that
	// member leave in the same transaction (JoinResult.Left), so nobody is
	// given turns nobody takes; a member holding the stick stays. At most
	// MaxHeld entries.
	Held []Membership
}

// Membership is a member a join made its caller in a room, as a frontend
// remembers it from the JoinResult: the room, the agent id and its reclaim
// token ("" if the join gave none).
type Membership struct {
	RoomID       string
	AgentID      string
	ReclaimToken string
}

// token returns the reclaim token req holds for agent in room, "" if none.
func (req JoinRequest) token(room, agent string) string {
	for _, m := range req.Held {
		if m.RoomID == room && m.AgentID == agent {
			return m.ReclaimToken
		}
	}
	return ""
}

// holds reports whether req holds a membership of agent in room.
func (req JoinRequest) holds(room, agent string) bool {
	for _, m := range req.Held {
		if m.RoomID == room && m.AgentID == agent {
			return true
		}
	}
	return false
}

// JoinResult is what a member needs after joining.
type JoinResult struct {
	// AgentID is the identity the caller joined as; use it in logs and handoffs.
	AgentID string `json:"agent_id"`
	RoomID  string `json:"room_id"`
	// CanonicalPath is the room's path, which may differ from the
	// requested one; "" for a named room.
	CanonicalPath string `json:"canonical_path"`
	// RoomKey names the room's workspace the same way on every host (see
	// Room.Key); "" for a named room.
	RoomKey string `json:"room_key,omitempty"`
	// RoomName is the name of a named room; "" for a room of a path.
	RoomName string `json:"room_name,omitempty"`
	// RequestedPath is the canonical form of the path asked for.
	RequestedPath string `json:"requested_path"`
	WorkspaceRoot string `json:"workspace_root"`
	// Created is true when this call created the room.
	Created bool `json:"created"`
	// NewMember is true when the caller was added to the member sequence.
	NewMember bool `json:"new_member"`
	// ReclaimToken lets a restarted process join as this member again
	// (JoinRequest.ReclaimToken); keep it, and show it to no one else. It
	// is given only to the member itself: on the join that adds it, on a
	// reclaim, and to the process the member recorded; "" otherwise.
	ReclaimToken string `json:"reclaim_token"`
	// Reclaimed is true when the join presented a reclaim token.
	Reclaimed bool `json:"reclaimed,omitempty"`
	// FoundAgain is true when the join became its member through
	// JoinRequest.ReclaimIfGone: a member this host recorded for the
	// caller's harness and workspace, whose process had exited.
	FoundAgain bool `json:"found_again,omitempty"`
	// Warning is set when a nested room was created below an existing room.
	Warning string `json:"warning,omitempty"`
	// Left is the caller's own member that left the room because the join
	// reclaimed another one (see JoinRequest.Held), "" if none did: a
	// frontend forgets what it kept for it. Room shows the members after.
	Left string `json:"-"`
	// Policy is the room's effective policy, including the heartbeat cadence.
	Policy Policy `json:"policy"`
	// HandoffTemplate shows the expected handoff shape.
	HandoffTemplate Handoff `json:"handoff_template"`
	// Room is the room's state after the join.
	Room RoomStatus `json:"room"`
}

// JoinPath resolves path to a room and adds the caller to its member sequence
// (or refreshes its presence). Resolution: canonicalise the path, find its
// workspace root (git top level, else a marker file, else the path), pick the
// deepest open room on the chain between them, else create one at the root.
// With ForceNew and a room on the chain, create (or join) a room at the path
// itself, nested below it; with no room on the chain ForceNew changes
// nothing, the room is created at the root. The Service's Workspaces does
// the resolving, and keys a room it creates (Room.Key). With Name instead
// of Path, the room is the open room of that name, created if there is
// none (see RoomNamePattern). With RoomID, the room is the open room of
// that id, never a new one.
//
// A join never changes the recorded process of the current holder or
// reserved recipient: their liveness stays tied to the process that claimed.
// Other members' process facts are replaced by the caller's, except that a
// one-shot caller never records any.
//
// A member's name is reserved: joining under an agent id override that
// names a member of the room needs the member's reclaim token, unless the
// caller is the very process the member recorded. So does a caller
// whose agent id was chosen (Caller.Chosen) naming a member who is a
// program, here and in every other call (see vouch). A reclaim by a new
// process moves the member's process facts to it, and so does a reclaim by
// the holder or reserved recipient whose recorded process is proven gone:
// the restarted member keeps its turn. A join may also become a member
// the caller's host recorded for it (JoinRequest.ReclaimIfGone), and only
// one whose recorded process is proven gone.
//
// No room is ever created at the filesystem root, the home directory or a
// top-level directory that is no project (workspace.Choice.Refused): such
// a join is refused with invalid_argument on context_path; an open room
// already there is still joined.
//
// Errors: invalid_argument (path, name, both or neither of them, conclude
// without a name, agent id,
// reclaim_token, a field over its size limit), agent_id_in_use, and for
// a join by RoomID room_not_found and room_closed.
func (s *Service) JoinPath(ctx context.Context, c Caller, req JoinRequest) (JoinResult, error) {
	if err := s.act(ActionJoinPath, c); err != nil {
		return JoinResult{}, err
	}
	if err := req.checkSizes(); err != nil {
		return JoinResult{}, err
	}
	self := c
	override := req.AgentIDOverride != ""
	if override {
		if err := validateAgentID("agent_id_override", req.AgentIDOverride); err != nil {
			return JoinResult{}, err
		}
		c.AgentID = req.AgentIDOverride
		if err := s.owns(c.AgentID); err != nil {
			return JoinResult{}, err
		}
	}
	if err := c.validate(); err != nil {
		return JoinResult{}, err
	}
	var place func(tx Tx, now time.Time, out *JoinResult) (Room, error)
	if req.RoomID != "" {
		if err := req.checkByID(); err != nil {
			return JoinResult{}, err
		}
		place = func(tx Tx, _ time.Time, _ *JoinResult) (Room, error) { return s.byID(tx, req.RoomID) }
	} else if req.Name != "" {
		if err := req.checkNamed(); err != nil {
			return JoinResult{}, err
		}
		place = func(tx Tx, now time.Time, out *JoinResult) (Room, error) { return namedRoom(tx, req.Name, now, out) }
	} else {
		if req.Conclude {
			return JoinResult{}, invalidArg("conclude", "conclude makes the caller responsible for the conclusion of a room created by name; this join gives no name").
				WithHint("join by name with conclude, or leave conclude out")
		}
		if req.Path == "" {
			return JoinResult{}, invalidArg("context_path", "give context_path (a file or directory in your workspace) or name (a room people named), not neither").
				WithHint("pass your working directory as context_path, or a room's name, for example release-1.4-review")
		}
		res, err := s.resolve(req.Path)
		if err != nil {
			return JoinResult{}, err
		}
		place = func(tx Tx, now time.Time, out *JoinResult) (Room, error) { return s.pathRoom(tx, req, res, now, out) }
	}
	var out JoinResult
	err := s.store.Update(ctx, func(tx Tx) error {
		out = JoinResult{AgentID: c.AgentID}
		room, err := place(tx, s.clock.Now(), &out)
		if err != nil {
			return err
		}
		if !s.reaches(room) {
			return s.unreached(room)
		}
		sn, err := s.load(tx, room.ID)
		if err != nil {
			return err
		}
		if !override && req.ReclaimToken == "" {
			if err := sn.vouch(c); err != nil {
				return err
			}
		}
		switch {
		case req.ReclaimToken != "" || override:
			req := req
			c.AgentID, out.FoundAgain, err = sn.claimName(c, req)
			if ErrorCode(err) == CodeAgentIDInUse && req.ReclaimToken == "" {
				// The name is a member's that another process joined as
				// since; the token held for it in this room proves it.
				if req.ReclaimToken = req.token(room.ID, req.AgentIDOverride); req.ReclaimToken != "" {
					c.AgentID, out.FoundAgain, err = sn.claimName(c, req)
				}
			}
			if err != nil {
				return err
			}
			out.AgentID, out.Reclaimed = c.AgentID, req.ReclaimToken != "" || out.FoundAgain
		case sn.member(c.AgentID) == nil:
			if id := sn.goneMember(c, req.ReclaimIfGone); id != "" {
				c.AgentID, out.AgentID, out.Reclaimed, out.FoundAgain = id, id, true, true
			}
		}
		if err := s.owns(c.AgentID); err != nil {
			// A reclaim token of a member of another credential, or of
			// this host, is no way in for a principal.
			return err
		}
		if out.ReclaimToken, err = s.enrol(tx, sn, c, enrolment{override: override, forceNew: req.ForceNew, reclaimed: out.Reclaimed}, &out.NewMember); err != nil {
			return err
		}
		if err := sn.attend(tx, c); err != nil {
			return err
		}
		if req.Conclude && out.Created {
			if err := sn.nameConcluder(tx, c.AgentID, c.AgentID); err != nil {
				return err
			}
		}
		if out.Left, err = sn.leaveReplaced(tx, self, out, req); err != nil {
			return err
		}
		if out.Left != "" {
			// The leave may have moved the reservation: read the room as
			// it is now, liveness and all.
			if sn, err = s.load(tx, room.ID); err != nil {
				return err
			}
		}
		out.RoomID, out.CanonicalPath, out.RoomKey, out.RoomName = room.ID, room.Path, room.Key, room.Name
		out.Policy, out.HandoffTemplate = sn.policy, NewHandoffTemplate()
		out.Room, err = s.status(tx, sn)
		return err
	})
	return out, err
}

// pathRoom finds or creates the room a join of the resolved path res
// belongs to (see JoinPath), and notes in out what it found and did.
func (s *Service) pathRoom(tx Tx, req JoinRequest, res workspace.Resolution, now time.Time, out *JoinResult) (Room, error) {
	out.RequestedPath, out.WorkspaceRoot = res.Path, res.Root
	rooms, err := tx.RoomsAt(workspace.Ancestors(res.Path, res.Root), false)
	if err != nil {
		return Room{}, err
	}
	var deepest *Room
	for i := range rooms {
		if deepest == nil || len(rooms[i].Path) > len(deepest.Path) {
			deepest = &rooms[i]
		}
	}
	if deepest != nil && (!req.ForceNew || deepest.Path == res.Path) {
		return *deepest, nil
	}
	path, refused := res.Root, res.Refused
	if req.ForceNew && deepest != nil {
		path, refused = res.Path, s.workspaces.Refusal(res.Path)
		out.Warning = "an ancestor room exists at " + deepest.Path + " (" + deepest.ID + "); created a nested room at " + path
	}
	if refused != "" {
		return Room{}, notAProject(req.Path, path, refused)
	}
	room := Room{ID: newID(roomIDPrefix, 8), Path: path, Key: s.workspaces.Key(path), State: StateIdle, CreatedAt: now, UpdatedAt: now}
	if err := tx.CreateRoom(room); err != nil {
		return Room{}, err
	}
	out.Created = true
	return room, nil
}

// namedRoom finds the open room named name or creates it, and notes in out
// whether it created it.
func namedRoom(tx Tx, name string, now time.Time, out *JoinResult) (Room, error) {
	switch rooms, err := tx.RoomsNamed(name, false); {
	case err != nil:
		return Room{}, err
	case len(rooms) > 0:
		return rooms[0], nil
	}
	room := Room{ID: newID(roomIDPrefix, 8), Name: name, State: StateIdle, CreatedAt: now, UpdatedAt: now}
	if err := tx.CreateRoom(room); err != nil {
		return Room{}, err
	}
	out.Created = true
	return room, nil
}

// checkNamed refuses a join by name that also gives a path or ForceNew, or
// whose name breaks the rule.
func (req JoinRequest) checkNamed() error {
	if req.Path != "" {
		return invalidArg("name", "give context_path or name, not both: a named room has no path").
			WithHint("drop context_path to join the room named %s, or name to join the room of the path", Quote(req.Name))
	}
	if req.ForceNew {
		return invalidArg("force_new", "force_new nests a room below a path's room; a named room has no path").
			WithHint("drop force_new to join the room named %s", Quote(req.Name))
	}
	return checkRoomName("name", req.Name)
}

// leaveReplaced makes the caller's own member leave the room when the join
// (out) reclaimed another member and req holds the caller's own agent id
// as its member in the room (see JoinRequest.Held); it returns the agent
// id that left, "" when none did. A member holding the stick stays, and
// so does one the caller may not act as (see vouch).
func (sn *snapshot) leaveReplaced(tx Tx, self Caller, out JoinResult, req JoinRequest) (string, error) {
	switch {
	case !out.Reclaimed || out.AgentID == self.AgentID || !req.holds(sn.room.ID, self.AgentID) || sn.member(self.AgentID) == nil:
		return "", nil
	case sn.room.State == StateOwned && sn.room.Owner == self.AgentID, sn.vouch(self) != nil:
		return "", nil
	}
	return self.AgentID, sn.leave(tx, self.AgentID, nil)
}

// enrolment says how a caller joins.
type enrolment struct {
	override, forceNew, reclaimed bool
}

// enrol adds the caller to the room or refreshes it, appends a join event
// for a new or reclaimed member, and returns the member's reclaim token
// when the caller is the member itself ("" otherwise).
func (s *Service) enrol(tx Tx, sn *snapshot, c Caller, how enrolment, added *bool) (string, error) {
	m := sn.member(c.AgentID)
	if m == nil {
		ord := 1
		for _, o := range sn.members {
			if o.Ordinal >= ord {
				ord = o.Ordinal + 1
			}
		}
		sn.members = append(sn.members, Member{RoomID: sn.room.ID, AgentID: c.AgentID, Ordinal: ord, JoinedAt: sn.now})
		m = &sn.members[len(sn.members)-1]
		*added = true
	}
	if m.ReclaimToken == "" {
		m.ReclaimToken = newID("rt_", 16)
	}
	// A reclaim is worth a join event only when the member came back in
	// another process. The token goes only to the member itself: on the
	// join that adds it, on a reclaim, and to the process it recorded.
	moved := how.reclaimed && !c.Process.Same(m.Process)
	own := *added || how.reclaimed || (!c.Process.IsZero() && c.Process.Same(m.Process))
	owner := sn.room.State == StateOwned && sn.room.Owner == c.AgentID
	recipient := sn.room.State == StateReserved && sn.room.ReservedFor == c.AgentID
	switch {
	case (owner || recipient) && how.reclaimed && c.Kind != KindOneShot && sn.probe(m.Process) == procid.Gone:
		// The member came back in a new process: its turn follows it.
		m.Process, m.Kind = c.Process, c.kindAs(m)
		if owner {
			sn.ownerStatus = sn.probe(m.Process)
		} else {
			sn.recipientStatus = sn.probe(m.Process)
		}
	case !owner && !recipient && c.Kind != KindOneShot:
		m.Process, m.Kind = c.Process, c.kindAs(m)
	case m.Kind == "":
		m.Kind = c.kind()
	}
	if c.DisplayName != "" {
		m.DisplayName = c.DisplayName
	}
	m.LastSeenAt = sn.now
	if err := saveMember(tx, *m); err != nil {
		return "", err
	}
	token := ""
	if own {
		token = m.ReclaimToken
	}
	if !*added && !moved {
		return token, nil
	}
	data := encodeData(JoinData{Override: how.override, ForceNew: how.forceNew, SessionKind: m.Kind, Ordinal: m.Ordinal, Reclaimed: moved})
	_, err := appendEvent(tx, Event{RoomID: sn.room.ID, TurnID: sn.room.TurnID, Type: EventJoin, From: c.AgentID, Data: data, CreatedAt: sn.now})
	return token, err
}

// claimName returns the agent id a join with a reclaim token or an agent id
// override may act as: the token's member, or the override if it names no
// member, or names one whose token the caller holds or whose recorded
// process the caller is, or one that a ReclaimIfGone token of a member
// whose process is proven gone proves (found is then true).
func (sn *snapshot) claimName(c Caller, req JoinRequest) (id string, found bool, err error) {
	if req.ReclaimToken != "" {
		for i := range sn.members {
			m := &sn.members[i]
			if m.ReclaimToken == "" || subtle.ConstantTimeCompare([]byte(m.ReclaimToken), []byte(req.ReclaimToken)) != 1 {
				continue
			}
			if req.AgentIDOverride != "" && req.AgentIDOverride != m.AgentID {
				return "", false, invalidArg("reclaim_token", "the reclaim_token belongs to %s, not to agent_id_override %s", m.AgentID, req.AgentIDOverride).
					WithHint("leave agent_id_override out to join as %s", m.AgentID)
			}
			return m.AgentID, false, nil
		}
		return "", false, invalidArg("reclaim_token", "the reclaim_token belongs to no member of room %s", sn.room.ID).
			With("room_id", sn.room.ID).
			WithHint("join without reclaim_token to join as a new member; a token works only in the room that gave it, while its member has not left")
	}
	m := sn.member(c.AgentID)
	if m == nil || (!c.Process.IsZero() && c.Process.Same(m.Process)) {
		return c.AgentID, false, nil
	}
	if sn.recordedGone(c, m, req.ReclaimIfGone) {
		return c.AgentID, true, nil
	}
	return "", false, sn.describe(Errorf(CodeAgentIDInUse, "%s is a member of room %s; only its reclaim_token may join as it", c.AgentID, sn.room.ID)).
		With("agent_id", c.AgentID).
		WithHint("pass the reclaim_token that join_path gave %s, or choose another agent_id_override", c.AgentID)
}

// vouch returns agent_id_in_use when c chose its agent id (Caller.Chosen)
// and the id names a member who is a program that c may not act as: c is
// not the member's recorded process and does not hold its reclaim token.
// Every call that acts as a member checks it, so a command's --agent
// cannot claim a turn reserved for an agent's harness, take its handoff
// or post in its name.
func (sn *snapshot) vouch(c Caller) error {
	m := sn.member(c.AgentID)
	if !c.Chosen || m == nil || person(m) {
		return nil
	}
	if !c.Process.IsZero() && c.Process.Same(m.Process) {
		return nil
	}
	if c.ReclaimToken != "" && m.ReclaimToken != "" && subtle.ConstantTimeCompare([]byte(m.ReclaimToken), []byte(c.ReclaimToken)) == 1 {
		return nil
	}
	why := "no reclaim token was given"
	if c.ReclaimToken != "" {
		why = "the reclaim token given is not its"
	}
	return sn.describe(Errorf(CodeAgentIDInUse, "%s is a member of room %s run by a program (%s), and %s: only its reclaim token or its own process may act as it",
		c.AgentID, sn.room.ID, m.Kind, why)).
		With("agent_id", c.AgentID).
		WithHint("act as %s with its reclaim_token, which its join gave it, or under an agent id of your own", c.AgentID)
}

// goneMember returns the member of the first of tokens that
// recordedGone allows c to become, "" if none.
func (sn *snapshot) goneMember(c Caller, tokens []string) string {
	for _, t := range tokens {
		for i := range sn.members {
			if m := &sn.members[i]; sn.recordedGone(c, m, []string{t}) {
				return m.AgentID
			}
		}
	}
	return ""
}

// recordedGone reports whether c, a caller with process facts, may become
// m through a token of tokens (JoinRequest.ReclaimIfGone): one of them is
// m's reclaim token and m's recorded process is proven gone.
func (sn *snapshot) recordedGone(c Caller, m *Member, tokens []string) bool {
	if c.Process.IsZero() || c.Kind == KindOneShot || m.ReclaimToken == "" {
		return false
	}
	for _, t := range tokens {
		if subtle.ConstantTimeCompare([]byte(m.ReclaimToken), []byte(t)) == 1 {
			return sn.probe(m.Process) == procid.Gone
		}
	}
	return false
}

// notAProject is the refusal of a join that would create a room at dir,
// which may hold none (why says so).
func notAProject(path, dir, why string) error {
	return invalidArg("context_path", "context_path %s is in no project: %s, and no room is created there", Quote(path), why).
		With("root", dir).
		WithHint("run inside a git repository, add a marker file (%s) to the project's top directory, or pass a project directory",
			strings.Join(workspace.Markers(), ", "))
}

// checkSizes refuses a request with a field over its size limit, before
// any other work.
func (req JoinRequest) checkSizes() error {
	if err := checkLen("context_path", req.Path, MaxPathLen); err != nil {
		return err
	}
	if err := checkLen("name", req.Name, MaxRoomNameLen); err != nil {
		return err
	}
	if err := checkLen("room_id", req.RoomID, MaxIDLen); err != nil {
		return err
	}
	if err := checkLen("agent_id_override", req.AgentIDOverride, MaxAgentIDLen); err != nil {
		return err
	}
	if err := checkLen("reclaim_token", req.ReclaimToken, MaxIDLen); err != nil {
		return err
	}
	if len(req.ReclaimIfGone) > MaxReclaimTokens {
		return invalidArg("reclaim_if_gone", "reclaim_if_gone lists %d tokens; at most %d are allowed", len(req.ReclaimIfGone), MaxReclaimTokens)
	}
	for _, t := range req.ReclaimIfGone {
		if err := checkLen("reclaim_if_gone", t, MaxIDLen); err != nil {
			return err
		}
	}
	if len(req.Held) > MaxHeld {
		return invalidArg("held", "held lists %d memberships; at most %d are allowed", len(req.Held), MaxHeld)
	}
	for _, m := range req.Held {
		for _, f := range []struct {
			v   string
			max int
		}{{m.RoomID, MaxIDLen}, {m.AgentID, MaxAgentIDLen}, {m.ReclaimToken, MaxIDLen}} {
			if err := checkLen("held", f.v, f.max); err != nil {
				return err
			}
		}
	}
	return nil
}
