package stick

import (
	"maps"
	"slices"
)

// Action is an operation of the Service that a principal needs a role
// for: its value is the name of the method.
type Action string

// The actions of the Service, as Access lists them.
const (
	ActionListRooms       Action = "ListRooms"
	ActionRoomsByKey      Action = "RoomsByKey"
	ActionRoomNamed       Action = "RoomNamed"
	ActionRoomFor         Action = "RoomFor"
	ActionRoomState       Action = "RoomState"
	ActionRoomEvents      Action = "RoomEvents"
	ActionFollowEvents    Action = "FollowEvents"
	ActionTailEvents      Action = "TailEvents"
	ActionEventsBefore    Action = "EventsBefore"
	ActionReadDoc         Action = "ReadDoc"
	ActionDocHistory      Action = "DocHistory"
	ActionSearch          Action = "Search"
	ActionTranscript      Action = "Transcript"
	ActionWaitForMembers  Action = "WaitForMembers"
	ActionWatchState      Action = "WatchState"
	ActionWatchRooms      Action = "WatchRooms"
	ActionJoinPath        Action = "JoinPath"
	ActionWaitForTurn     Action = "WaitForTurn"
	ActionHeartbeat       Action = "Heartbeat"
	ActionRelease         Action = "Release"
	ActionPass            Action = "Pass"
	ActionHandOn          Action = "HandOn"
	ActionTakeover        Action = "Takeover"
	ActionLeave           Action = "Leave"
	ActionPost            Action = "Post"
	ActionAppendNote      Action = "AppendNote"
	ActionSync            Action = "Sync"
	ActionUpdateDoc       Action = "UpdateDoc"
	ActionAppendDoc       Action = "AppendDoc"
	ActionAttend          Action = "Attend"
	ActionKeepAlive       Action = "KeepAlive"
	ActionClose           Action = "Close"
	ActionSetConcluder    Action = "SetConcluder"
	ActionSetPolicy       Action = "SetPolicy"
	ActionReorderMembers  Action = "ReorderMembers"
	ActionAbandonedRooms  Action = "AbandonedRooms"
	ActionPruneRooms      Action = "PruneRooms"
	ActionCreateToken     Action = "CreateToken"
	ActionListTokens      Action = "ListTokens"
	ActionRevokeToken     Action = "RevokeToken"
	ActionHubSettings     Action = "HubSettings"
	ActionSetPublicURL    Action = "SetPublicURL"
	ActionSetHandle       Action = "SetHandle"
	ActionWhoAmI          Action = "WhoAmI"
	ActionSetStandby      Action = "SetStandby"
	ActionRegisterWake    Action = "RegisterWake"
	ActionClaimWake       Action = "ClaimWake"
	ActionAwaitWake       Action = "AwaitWake"
	ActionReportWake      Action = "ReportWake"
	ActionRemoveMember    Action = "RemoveMember"
	ActionDeclareChannels Action = "DeclareChannels"
	ActionListChannels    Action = "ListChannels"
	ActionHistory         Action = "History"
	ActionAddressed       Action = "Addressed"
)

// permission is one row of the access table: the weakest role that may
// do an action, and the action in words for a refusal.
type permission struct {
	role  AccessRole
	doing string
}

// access is the one table of who may do what, for a Service acting for a
// principal (Service.As). A Service made by New acts for no principal and
// may do everything.
//
// viewer reads: the lists of rooms, a room's state, log, tail and
// document with its history, search, the export (Transcript), and the
// roster, waiting for it to fill (WaitForMembers). It also watches a
// room's state and the list of rooms for changes (WatchState,
// WatchRooms), as a live page does. Reading needs no membership and
// changes nothing.
//
// agent also acts as a member: joins a room, waits for and claims the
// stick, heartbeats, releases, passes (or hands on without a lease,
// HandOn), takes over, leaves, posts notes,
// writes the document, and follows the log with Sync. Sync is an agent's
// although it mostly reads: it moves the member's own cursor and may post
// an outbox, and only a member may call it, which a viewer, who cannot
// join, never is. Attend and KeepAlive renew a holder's lease, so they
// are an agent's too.
//
// An agent also takes part in ending a team's session, under rules of
// the room that Close and SetConcluder apply besides this table: an agent
// asks to close a room that names a member responsible for its
// conclusion (the stick goes to that member), closes it as that member
// (only with a conclusion), and as that member names another one. A room
// that names no such member only an operator closes.
//
// An agent also chooses its handle, reads its identity, stands by,
// registers how its session is woken and claims and reports its own
// wakes, and declares the channels its project's file names. It removes
// another member only when that member's process is proven gone (see
// RemoveMember); an operator removes any member.
//
// A viewer also lists a room's channels and reads its history filtered.
//
// operator also manages: closes rooms outright (at once, with a
// conclusion or without, whoever is responsible for it), names the
// member responsible for a room's conclusion, changes a room's policy and
// member order, lists and prunes abandoned rooms, creates, lists and
// revokes tokens, and reads and changes the hub's settings (its public
// URL only with a token that reaches every room: it is the whole hub's).
//
// Authenticate, Defaults, Shutdown, As and Principal are no actions: they
// are open to every Service; so are FindReplay and KeepReplay, which keep
// a frontend's answers to its principal's own writes, apart from every
// other principal's.
var access = map[Action]permission{
	ActionListRooms:       {AccessViewer, "listing rooms"},
	ActionRoomsByKey:      {AccessViewer, "listing rooms by key"},
	ActionRoomNamed:       {AccessViewer, "finding a room by name"},
	ActionRoomFor:         {AccessViewer, "finding the room of a path"},
	ActionRoomState:       {AccessViewer, "reading a room's state"},
	ActionRoomEvents:      {AccessViewer, "reading a room's events"},
	ActionFollowEvents:    {AccessViewer, "following a room's events"},
	ActionTailEvents:      {AccessViewer, "reading a room's latest events"},
	ActionEventsBefore:    {AccessViewer, "reading a room's older events"},
	ActionReadDoc:         {AccessViewer, "reading a room's document"},
	ActionDocHistory:      {AccessViewer, "reading a document's history"},
	ActionSearch:          {AccessViewer, "searching"},
	ActionTranscript:      {AccessViewer, "exporting a room"},
	ActionWaitForMembers:  {AccessViewer, "reading a room's members"},
	ActionWatchState:      {AccessViewer, "watching a room's state"},
	ActionWatchRooms:      {AccessViewer, "watching the rooms"},
	ActionJoinPath:        {AccessAgent, "joining a room"},
	ActionWaitForTurn:     {AccessAgent, "waiting for the stick"},
	ActionHeartbeat:       {AccessAgent, "renewing a lease"},
	ActionRelease:         {AccessAgent, "releasing the stick"},
	ActionPass:            {AccessAgent, "passing the stick"},
	ActionHandOn:          {AccessAgent, "handing on the stick"},
	ActionTakeover:        {AccessAgent, "taking the stick over"},
	ActionLeave:           {AccessAgent, "leaving a room"},
	ActionPost:            {AccessAgent, "posting a note"},
	ActionAppendNote:      {AccessAgent, "posting a note"},
	ActionSync:            {AccessAgent, "syncing a member's log"},
	ActionUpdateDoc:       {AccessAgent, "writing a room's document"},
	ActionAppendDoc:       {AccessAgent, "appending to a room's document"},
	ActionAttend:          {AccessAgent, "renewing a lease"},
	ActionKeepAlive:       {AccessAgent, "keeping a lease alive"},
	ActionClose:           {AccessAgent, "closing a room"},
	ActionSetConcluder:    {AccessAgent, "naming the member responsible for a room's conclusion"},
	ActionSetPolicy:       {AccessOperator, "changing a room's policy"},
	ActionReorderMembers:  {AccessOperator, "reordering a room's members"},
	ActionAbandonedRooms:  {AccessOperator, "listing abandoned rooms"},
	ActionPruneRooms:      {AccessOperator, "pruning abandoned rooms"},
	ActionCreateToken:     {AccessOperator, "creating a token"},
	ActionListTokens:      {AccessOperator, "listing tokens"},
	ActionRevokeToken:     {AccessOperator, "revoking a token"},
	ActionHubSettings:     {AccessOperator, "reading the hub's settings"},
	ActionSetPublicURL:    {AccessOperator, "setting the hub's public URL"},
	ActionListChannels:    {AccessViewer, "listing a room's channels"},
	ActionHistory:         {AccessViewer, "reading a room's history"},
	ActionAddressed:       {AccessAgent, "reading the notes addressed to one"},
	ActionSetHandle:       {AccessAgent, "choosing a handle"},
	ActionWhoAmI:          {AccessAgent, "reading one's identity"},
	ActionSetStandby:      {AccessAgent, "standing by"},
	ActionRegisterWake:    {AccessAgent, "registering how a session is woken"},
	ActionClaimWake:       {AccessAgent, "waking a session"},
	ActionAwaitWake:       {AccessAgent, "waiting to wake a session"},
	ActionReportWake:      {AccessAgent, "reporting a wake"},
	ActionRemoveMember:    {AccessAgent, "removing a member"},
	ActionDeclareChannels: {AccessAgent, "declaring a room's channels"},
}

// Access returns the weakest role that may do a (see the table in
// access.go's doc), and false for an action it does not know.
func Access(a Action) (AccessRole, bool) {
	p, ok := access[a]
	return p.role, ok
}

// Actions returns every action of the access table, sorted.
func Actions() []Action { return slices.Sorted(maps.Keys(access)) }

// As returns a Service that acts for p, sharing everything else with s:
// its store, clock, caches and shutdown. Each method of the returned
// Service first checks that p's role may do it (Access), else it fails
// with forbidden, and that p has not expired, else unauthenticated. It
// acts only in the rooms p's scope reaches: other rooms are missing from
// its lists and searches, and reading or acting in one by its id, name
// or path is room_not_found, as if it did not exist, so a limited
// credential learns nothing of them. Joining a room the scope does not reach is forbidden,
// decided by the name or key the room has, not by whether it exists yet.
// And every Caller it is given must be one of p's members (Principal.Owns),
// else forbidden: a frontend names callers with package identity from the
// principal and the client, never from a request's fields. As on a Service
// that acts for a principal replaces that principal.
func (s *Service) As(p Principal) *Service {
	p.Rooms = Scope{Names: slices.Clone(p.Rooms.Names), KeyPrefixes: slices.Clone(p.Rooms.KeyPrefixes)}
	return &Service{core: s.core, principal: &p, handle: p.Handle()}
}

// Principal returns who s acts for, and false for a Service that acts for
// no principal (one made by New).
func (s *Service) Principal() (Principal, bool) {
	if s.principal == nil {
		return Principal{}, false
	}
	return *s.principal, true
}

// allow returns nil when s may do a: it acts for no principal, or for one
// that has not expired and whose role may (see access).
func (s *Service) allow(a Action) error {
	p := s.principal
	if p == nil {
		return nil
	}
	if !p.ExpiresAt.IsZero() && !s.clock.Now().Before(p.ExpiresAt) {
		return unauthenticated()
	}
	perm, ok := access[a]
	if ok && p.Role.AtLeast(perm.role) {
		return nil
	}
	if !ok {
		return Errorf(CodeInternal, "%s has no row in the access table", a)
	}
	return Errorf(CodeForbidden, "%s needs the role %s; the token %s has the role %s", perm.doing, perm.role, Quote(p.Name), p.Role).
		With("needed_role", string(perm.role)).With("role", string(p.Role)).
		WithHint("ask an operator of the hub for a token with the role %s", perm.role)
}

// act is allow for an action by c, which must also be one of the
// principal's members (Principal.Owns).
func (s *Service) act(a Action, c Caller) error {
	if err := s.allow(a); err != nil {
		return err
	}
	return s.owns(c.AgentID)
}

// owns returns forbidden unless s acts for no principal or agentID is one
// of its members.
func (s *Service) owns(agentID string) error {
	p := s.principal
	if p == nil || handleOwns(s.handle, agentID) {
		return nil
	}
	return Errorf(CodeForbidden, "agent id %s is not a member of the token %s: over a hub, a member's id comes from its token and its client",
		Quote(agentID), Quote(p.Name)).With("agent_id", agentID).
		WithHint("leave the agent id out; the hub names you by your client, then @%s", s.handle)
}

// reaches reports whether s may see room r: it acts for no principal, or
// the principal's scope reaches r.
func (s *Service) reaches(r Room) bool {
	return s.principal == nil || s.principal.Rooms.Reaches(r.Name, r.Key)
}

// reachable returns the rooms of rooms that s reaches, in their order.
func (s *Service) reachable(rooms []Room) []Room {
	if s.principal == nil || s.principal.Rooms.All() {
		return rooms
	}
	return slices.DeleteFunc(rooms, func(r Room) bool { return !s.reaches(r) })
}

// unreached is the refusal of a join of room r, which the principal's
// scope does not reach.
func (s *Service) unreached(r Room) error {
	p := s.principal
	what := "the room named " + r.Name
	if r.Name == "" {
		what = "the room of key " + r.Key
	}
	return Errorf(CodeForbidden, "the token %s does not reach %s: it reaches %s", Quote(p.Name), what, p.Rooms).
		WithHint("join one of the rooms the token reaches, or ask an operator of the hub for a token that reaches this one")
}

// unauthenticated is the refusal of a secret that is unknown, revoked or
// expired, or of a principal that expired: one message for all, so that
// it tells a guesser nothing.
func unauthenticated() error {
	return Errorf(CodeUnauthenticated, "the token is not valid: it is unknown, revoked or expired").
		WithHint("ask an operator of the hub for a token; on the hub, 'stick token list' shows the tokens and 'stick token create' makes one")
}
