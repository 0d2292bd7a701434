package stick_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// hub is one access test's world: an env whose unrestricted Service
// prepares a named room (triage) and a room of a path, with the caller of
// a principal as a member of both, and the principal's Service.
type hub struct {
	*env
	p      stick.Principal
	as     *stick.Service
	c      stick.Caller // the principal's member
	named  string       // triage's id
	pathID string       // the path room's id
	key    string       // the path room's key
	lease  stick.Lease  // set by claim
	peer   stick.Caller // another member, of no principal
	// peerToken is the peer's reclaim token in triage.
	peerToken string
}

// member is the caller a hub names for p's client claude-code.
func member(p stick.Principal) stick.Caller {
	c, err := identity.NamePrincipal(p, identity.Client{Name: "claude-code"}, "")
	if err != nil {
		panic(err)
	}
	return c
}

func newHub(t *testing.T, p stick.Principal) *hub {
	t.Helper()
	e := newEnv(t)
	h := &hub{env: e, p: p, c: member(p), peer: agent("human:ana")}
	for _, c := range []stick.Caller{h.c, h.peer} {
		res, err := e.svc.JoinPath(e.ctx, c, stick.JoinRequest{Name: "triage"})
		if err != nil {
			t.Fatal(err)
		}
		h.named = res.RoomID
		if c == h.peer {
			h.peerToken = res.ReclaimToken
		}
		res = e.join(c)
		h.pathID, h.key = res.RoomID, res.RoomKey
	}
	if _, err := e.svc.Post(e.ctx, h.peer, h.named, stick.Note{Text: "hello from triage"}); err != nil {
		t.Fatal(err)
	}
	h.as = e.svc.As(p)
	return h
}

// claim makes the principal's member hold the stick of triage.
func (h *hub) claim() { h.lease = h.env.claim(h.c, h.named).Lease() }

// snapshot is what a refused call must leave as it was: triage's and the
// path room's state, and the tokens.
func (h *hub) snapshot() string {
	h.t.Helper()
	var b strings.Builder
	for _, id := range []string{h.named, h.pathID} {
		st := h.state(id)
		j, _ := json.Marshal(st)
		b.Write(j)
	}
	toks, err := h.svc.ListTokens(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	j, _ := json.Marshal(toks)
	b.Write(j)
	settings, err := h.svc.HubSettings(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	j, _ = json.Marshal(settings)
	b.Write(j)
	return b.String()
}

// missed is what a call in a room the principal's scope does not reach
// gives.
type missed int

const (
	// notFound: room_not_found, as for a room that does not exist.
	notFound missed = iota
	// forbidden: refused, decided by the room's name or key alone.
	forbidden
	// hidden: no error, and the room is not in the answer.
	hidden
	// anyScope: the call concerns no room; the scope changes nothing.
	anyScope
	// wholeHub: the call concerns the whole hub; only a principal that
	// reaches every room may make it, any other is forbidden.
	wholeHub
)

// accessCase is one method of the Service: how to prepare the world for
// it, and how to call it; run reports whether the room it concerns is in
// its answer (true for a call on one room).
type accessCase struct {
	action stick.Action
	name   string // when one action has several cases
	prep   func(h *hub)
	run    func(h *hub, s *stick.Service) (seen bool, err error)
	miss   missed
	// quiet: the method reports no error; a refusal shows as seen false.
	quiet bool
}

func one(err error) (bool, error) { return true, err }

func contains[T any](xs []T, f func(T) bool) bool { return slices.ContainsFunc(xs, f) }

var accessCases = []accessCase{
	{action: stick.ActionListRooms, miss: hidden, run: func(h *hub, s *stick.Service) (bool, error) {
		rooms, err := s.ListRooms(h.ctx, "")
		return contains(rooms, func(r stick.RoomSummary) bool { return r.RoomID == h.named }), err
	}},
	{action: stick.ActionRoomsByKey, miss: hidden, run: func(h *hub, s *stick.Service) (bool, error) {
		rooms, err := s.RoomsByKey(h.ctx, h.key)
		return contains(rooms, func(r stick.RoomSummary) bool { return r.RoomID == h.pathID }), err
	}},
	{action: stick.ActionRoomNamed, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.RoomNamed(h.ctx, "triage")
		return one(err)
	}},
	{action: stick.ActionRoomFor, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.RoomFor(h.ctx, h.repo, false)
		return one(err)
	}},
	{action: stick.ActionRoomState, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.RoomState(h.ctx, h.named)
		return one(err)
	}},
	{action: stick.ActionRoomEvents, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.RoomEvents(h.ctx, h.named, 0, 0)
		return one(err)
	}},
	{action: stick.ActionFollowEvents, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.FollowEvents(h.ctx, h.named, 0, 0)
		return one(err)
	}},
	{action: stick.ActionTailEvents, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.TailEvents(h.ctx, h.named, 0)
		return one(err)
	}},
	{action: stick.ActionEventsBefore, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.EventsBefore(h.ctx, h.named, 1<<40, 0)
		return one(err)
	}},
	{action: stick.ActionReadDoc, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.ReadDoc(h.ctx, h.named, 0)
		return one(err)
	}},
	{action: stick.ActionDocHistory, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.DocHistory(h.ctx, h.named)
		return one(err)
	}},
	{action: stick.ActionSearch, name: "every room", miss: hidden, run: func(h *hub, s *stick.Service) (bool, error) {
		hits, err := s.Search(h.ctx, stick.SearchQuery{Query: "hello"})
		return contains(hits, func(x stick.SearchHit) bool { return x.RoomID == h.named }), err
	}},
	{action: stick.ActionSearch, name: "one room", miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Search(h.ctx, stick.SearchQuery{Query: "hello", RoomID: h.named})
		return one(err)
	}},
	{action: stick.ActionTranscript, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Transcript(h.ctx, h.named, 0)
		return one(err)
	}},
	{action: stick.ActionWaitForMembers, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		r, err := s.WaitForMembers(h.ctx, h.named, 2, time.Minute)
		if err == nil && !r.Reached {
			h.t.Fatalf("triage has two members, yet the roster is %+v", r)
		}
		return one(err)
	}},
	{action: stick.ActionJoinPath, name: "by name", miss: forbidden, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.JoinPath(h.ctx, h.c, stick.JoinRequest{Name: "triage"})
		return one(err)
	}},
	{action: stick.ActionJoinPath, name: "by path", miss: forbidden, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.JoinPath(h.ctx, h.c, stick.JoinRequest{Path: h.repo})
		return one(err)
	}},
	{action: stick.ActionJoinPath, name: "by id", miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.JoinPath(h.ctx, h.c, stick.JoinRequest{RoomID: h.named})
		return one(err)
	}},
	{action: stick.ActionWatchState, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		ctx, cancel := context.WithCancel(h.ctx)
		defer cancel()
		_, _, err := s.WatchState(ctx, h.named)
		return one(err)
	}},
	{action: stick.ActionWatchRooms, miss: hidden, run: func(h *hub, s *stick.Service) (bool, error) {
		ctx, cancel := context.WithCancel(h.ctx)
		defer cancel()
		rooms, _, err := s.WatchRooms(ctx)
		return contains(rooms, func(r stick.RoomSummary) bool { return r.RoomID == h.named }), err
	}},
	{action: stick.ActionHandOn, miss: notFound, prep: (*hub).claim, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.HandOn(h.ctx, h.c, h.named, h.lease.TurnID, h.peer.AgentID, handoff("yours"))
		return one(err)
	}},
	{action: stick.ActionWaitForTurn, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.WaitForTurn(h.ctx, h.c, stick.WaitRequest{RoomID: h.named, MaxWait: noWait()})
		return one(err)
	}},
	{action: stick.ActionHeartbeat, miss: notFound, prep: func(h *hub) {
		h.claim()
		h.clock.Advance(time.Minute)
	}, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Heartbeat(h.ctx, h.c, h.lease)
		return one(err)
	}},
	{action: stick.ActionRelease, miss: notFound, prep: (*hub).claim, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Release(h.ctx, h.c, h.lease, handoff("done"))
		return one(err)
	}},
	{action: stick.ActionPass, miss: notFound, prep: (*hub).claim, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Pass(h.ctx, h.c, h.lease, h.peer.AgentID, handoff("yours"))
		return one(err)
	}},
	{action: stick.ActionTakeover, miss: notFound, prep: func(h *hub) {
		h.env.claim(h.peer, h.named)
		h.clock.Advance(h.svc.Defaults().OwnerLeaseTTL + time.Minute)
	}, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Takeover(h.ctx, h.c, h.named, 1, "the lease expired")
		return one(err)
	}},
	{action: stick.ActionLeave, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		return one(s.Leave(h.ctx, h.c, h.named))
	}},
	{action: stick.ActionPost, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Post(h.ctx, h.c, h.named, stick.Note{Text: "a note"})
		return one(err)
	}},
	{action: stick.ActionAppendNote, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.AppendNote(h.ctx, h.c, h.named, "a note")
		return one(err)
	}},
	{action: stick.ActionSync, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Sync(h.ctx, h.c, h.named, stick.SyncRequest{})
		return one(err)
	}},
	{action: stick.ActionUpdateDoc, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.UpdateDoc(h.ctx, h.c, h.named, "# Plan\n", 0)
		return one(err)
	}},
	{action: stick.ActionAppendDoc, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.AppendDoc(h.ctx, h.c, h.named, "a line", "Plan")
		return one(err)
	}},
	{action: stick.ActionAttend, miss: hidden, quiet: true, prep: func(h *hub) {
		h.claim()
		h.clock.Advance(h.svc.Defaults().HeartbeatInterval + time.Minute)
	}, run: func(h *hub, s *stick.Service) (bool, error) {
		return s.Attend(h.ctx, h.c, h.named), nil
	}},
	{action: stick.ActionKeepAlive, miss: notFound, prep: func(h *hub) {
		h.claim()
		if _, err := h.svc.Release(h.ctx, h.c, h.lease, handoff("done")); err != nil {
			h.t.Fatal(err)
		}
	}, run: func(h *hub, s *stick.Service) (bool, error) {
		// The lease is no longer current: KeepAlive returns at once.
		return one(s.KeepAlive(h.ctx, h.c, h.lease))
	}},
	{action: stick.ActionClose, name: "as the concluder", miss: notFound, prep: concludes, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Close(h.ctx, h.c, h.named, "done", "Triage is done.")
		return one(err)
	}},
	{action: stick.ActionClose, name: "asked of the concluder", miss: notFound, prep: func(h *hub) {
		h.setConcluder(h.peer.AgentID)
		h.claim()
	}, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.Close(h.ctx, h.c, h.named, "done", "")
		return one(err)
	}},
	{action: stick.ActionSetConcluder, miss: notFound, prep: concludes, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.SetConcluder(h.ctx, h.c, h.named, h.peer.AgentID)
		return one(err)
	}},
	{action: stick.ActionSetPolicy, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		d := 10 * time.Minute
		_, err := s.SetPolicy(h.ctx, h.c, h.named, stick.PolicyUpdate{ClaimTTL: &d})
		return one(err)
	}},
	{action: stick.ActionReorderMembers, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.ReorderMembers(h.ctx, h.c, h.named, []string{h.peer.AgentID})
		return one(err)
	}},
	{action: stick.ActionSetHandle, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.SetHandle(h.ctx, h.c, h.named, "triager")
		return one(err)
	}},
	{action: stick.ActionWhoAmI, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.WhoAmI(h.ctx, h.c, h.named)
		return one(err)
	}},
	{action: stick.ActionSetStandby, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.SetStandby(h.ctx, h.c, h.named, true)
		return one(err)
	}},
	{action: stick.ActionRegisterWake, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		return one(s.RegisterWake(h.ctx, h.c, h.named, []string{"claude-inbox"}))
	}},
	{action: stick.ActionClaimWake, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, _, err := s.ClaimWake(h.ctx, h.c, h.named)
		return one(err)
	}},
	{action: stick.ActionAwaitWake, miss: notFound, prep: addressTo, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.AwaitWake(h.ctx, h.c, h.named, func() bool { return true })
		return one(err)
	}},
	{action: stick.ActionReportWake, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		return one(s.ReportWake(h.ctx, h.c, h.named, "claude-inbox", "queued"))
	}},
	{action: stick.ActionRemoveMember, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.RemoveMember(h.ctx, h.c, h.named, h.c.AgentID, "done here")
		return one(err)
	}},
	{action: stick.ActionDeclareChannels, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		return one(s.DeclareChannels(h.ctx, h.c, h.named, []stick.ChannelSpec{{Name: "review", Description: "Reviews"}}))
	}},
	{action: stick.ActionListChannels, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.ListChannels(h.ctx, h.named)
		return one(err)
	}},
	{action: stick.ActionAddressed, miss: notFound, prep: addressTo, run: func(h *hub, s *stick.Service) (bool, error) {
		evs, err := s.Addressed(h.ctx, h.c, h.named)
		if err == nil && len(evs) != 1 {
			h.t.Errorf("Addressed gave %d notes, want the one addressed", len(evs))
		}
		return one(err)
	}},
	{action: stick.ActionHistory, miss: notFound, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.History(h.ctx, stick.HistoryQuery{RoomID: h.named})
		return one(err)
	}},
	{action: stick.ActionAbandonedRooms, miss: hidden, prep: abandon, run: func(h *hub, s *stick.Service) (bool, error) {
		rooms, err := s.AbandonedRooms(h.ctx, 0)
		return contains(rooms, func(r stick.AbandonedRoom) bool { return r.RoomID == h.named }), err
	}},
	{action: stick.ActionPruneRooms, miss: hidden, prep: abandon, run: func(h *hub, s *stick.Service) (bool, error) {
		rooms, err := s.PruneRooms(h.ctx, h.c, 0)
		return contains(rooms, func(r stick.AbandonedRoom) bool { return r.RoomID == h.named }), err
	}},
	{action: stick.ActionCreateToken, miss: anyScope, run: func(h *hub, s *stick.Service) (bool, error) {
		_, _, err := s.CreateToken(h.ctx, stick.TokenRequest{Name: "another team", Rooms: h.p.Rooms})
		return one(err)
	}},
	{action: stick.ActionListTokens, miss: anyScope, prep: oldToken, run: func(h *hub, s *stick.Service) (bool, error) {
		toks, err := s.ListTokens(h.ctx)
		return contains(toks, func(t stick.Token) bool { return t.Name == "old team" }), err
	}},
	{action: stick.ActionRevokeToken, miss: anyScope, prep: oldToken, run: func(h *hub, s *stick.Service) (bool, error) {
		_, err := s.RevokeToken(h.ctx, "old team")
		return one(err)
	}},
	{action: stick.ActionHubSettings, miss: anyScope, prep: publicURL, run: func(h *hub, s *stick.Service) (bool, error) {
		got, err := s.HubSettings(h.ctx)
		return got.PublicURL == "https://old.example.com", err
	}},
	{action: stick.ActionSetPublicURL, miss: wholeHub, prep: publicURL, run: func(h *hub, s *stick.Service) (bool, error) {
		got, err := s.SetPublicURL(h.ctx, "https://stick.example.com/")
		return got.PublicURL == "https://stick.example.com", err
	}},
}

// publicURL sets the hub's public URL to https://old.example.com.
func publicURL(h *hub) {
	if _, err := h.svc.SetPublicURL(h.ctx, "https://old.example.com"); err != nil {
		h.t.Fatal(err)
	}
}

// concludes makes the principal's member responsible for triage's
// conclusion.
func concludes(h *hub) { h.setConcluder(h.c.AgentID) }

// addressTo addresses a note to the principal's member in triage, so a
// wake of it is due and AwaitWake returns at once.
func addressTo(h *hub) {
	if _, err := h.svc.Post(h.ctx, h.peer, h.named, stick.Note{Text: "a word, please", To: []string{h.c.AgentID}}); err != nil {
		h.t.Fatal(err)
	}
}

// setConcluder names agent responsible for triage's conclusion, as the
// unrestricted Service may.
func (h *hub) setConcluder(agent string) {
	if _, err := h.svc.SetConcluder(h.ctx, h.peer, h.named, agent); err != nil {
		h.t.Fatal(err)
	}
}

// abandon makes every room abandoned: nobody called for longer than the
// default idle limit.
func abandon(h *hub) { h.clock.Advance(stick.DefaultAbandonAfter + time.Hour) }

// oldToken makes a token of the principal's scope, named old team.
func oldToken(h *hub) {
	if _, _, err := h.svc.CreateToken(h.ctx, stick.TokenRequest{Name: "old team", Rooms: h.p.Rooms}); err != nil {
		h.t.Fatal(err)
	}
}

// TestAccess calls every method of the Service for a principal of every
// role, and for principals whose scope does and does not reach the room:
// a role below the one Access names is forbidden, naming the role
// needed; a room out of scope is room_not_found (missing from lists,
// forbidden to join); a refused call changes nothing.
func TestAccess(t *testing.T) {
	// The room key is only known once the repository exists, so the
	// scopes are made per case from the hub's own key.
	type principal struct {
		name  string
		role  stick.AccessRole
		scope func(key string) stick.Scope
		reach bool
	}
	all := func(string) stick.Scope { return stick.Scope{} }
	principals := []principal{
		{"viewer", stick.AccessViewer, all, true},
		{"agent", stick.AccessAgent, all, true},
		{"operator", stick.AccessOperator, all, true},
		{"operator reaching the rooms", stick.AccessOperator, func(key string) stick.Scope {
			return stick.Scope{Names: []string{"other", "triage"}, KeyPrefixes: []string{key}}
		}, true},
		{"operator of other rooms", stick.AccessOperator, func(string) stick.Scope {
			return stick.Scope{Names: []string{"other"}, KeyPrefixes: []string{"github.com/nobody/"}}
		}, false},
	}
	for _, tc := range accessCases {
		name := string(tc.action)
		if tc.name != "" {
			name += " " + tc.name
		}
		t.Run(name, func(t *testing.T) {
			need, ok := stick.Access(tc.action)
			if !ok {
				t.Fatalf("%s has no row in the access table", tc.action)
			}
			for _, pr := range principals {
				t.Run(pr.name, func(t *testing.T) {
					p := stick.Principal{TokenID: "tok_0123456789abcdef", Name: pr.name + " team", Role: pr.role}
					h := newHub(t, p)
					h.p.Rooms = pr.scope(h.key)
					h.as = h.svc.As(h.p)
					if tc.prep != nil {
						tc.prep(h)
					}
					before := h.snapshot()
					seen, err := tc.run(h, h.as)
					switch {
					case !pr.role.AtLeast(need) && tc.quiet:
						if seen || err != nil {
							t.Fatalf("a %s may not %s, yet it did: %v %v", pr.role, tc.action, seen, err)
						}
					case !pr.role.AtLeast(need):
						e := wantCode(t, err, stick.CodeForbidden)
						if !strings.Contains(e.Message, "needs the role "+string(need)) || e.Details["needed_role"] != string(need) || e.Hint == "" {
							t.Fatalf("the refusal does not name the role needed (%s): %+v", need, e)
						}
					case tc.miss == wholeHub && !h.p.Rooms.All():
						e := wantCode(t, err, stick.CodeForbidden)
						if !strings.Contains(e.Message, "every room") || e.Hint == "" {
							t.Fatalf("the refusal of a token limited to some rooms does not say why: %+v", e)
						}
					case pr.reach || tc.miss == anyScope || tc.miss == wholeHub:
						if err != nil || !seen {
							t.Fatalf("a %s reaching the room may %s: seen %v, %v", pr.role, tc.action, seen, err)
						}
						return
					case tc.miss == notFound:
						e := wantCode(t, err, stick.CodeRoomNotFound)
						if words := e.Message + e.Hint; strings.Contains(words, "token") || strings.Contains(words, "reach") {
							t.Fatalf("a room out of scope is told from one that does not exist: %q (%s)", e.Message, e.Hint)
						}
					case tc.miss == forbidden:
						e := wantCode(t, err, stick.CodeForbidden)
						if !strings.Contains(e.Message, "does not reach") {
							t.Fatalf("the refusal of a join out of scope: %q", e.Message)
						}
					case tc.miss == hidden:
						if err != nil || seen {
							t.Fatalf("a room out of scope is in the answer of %s: seen %v, %v", tc.action, seen, err)
						}
					}
					if after := h.snapshot(); after != before {
						t.Fatalf("a refused %s changed the rooms or tokens:\nbefore %s\nafter  %s", tc.action, before, after)
					}
				})
			}
		})
	}
}

// Every exported method of the Service is an action of the access table
// or one of the few open to every Service, and every action has a case
// in TestAccess.
func TestAccessTableCoversTheService(t *testing.T) {
	open := map[string]string{
		"As":           "makes the Service that checks",
		"Principal":    "says who a Service acts for",
		"Authenticate": "is how a principal is found in the first place",
		"Defaults":     "tells the default policy, which is no secret",
		"Shutdown":     "ends the process's long polls, not a request's",
		"FindReplay":   "reads only the answers its own principal was given",
		"KeepReplay":   "keeps an answer its own principal was given",
	}
	actions := stick.Actions()
	typ := reflect.TypeFor[*stick.Service]()
	for i := range typ.NumMethod() {
		m := typ.Method(i).Name
		if _, ok := open[m]; ok {
			continue
		}
		if !slices.Contains(actions, stick.Action(m)) {
			t.Errorf("Service.%s is in no row of the access table (and not open to all)", m)
		}
	}
	for _, a := range actions {
		if _, ok := typ.MethodByName(string(a)); !ok {
			t.Errorf("the access table names %s, which is no method of the Service", a)
		}
		if !slices.ContainsFunc(accessCases, func(c accessCase) bool { return c.action == a }) {
			t.Errorf("TestAccess has no case for %s", a)
		}
	}
}

// A principal's Service acts only as the principal's members: a caller
// named otherwise, an agent id override or a reclaim token naming
// another member is forbidden, and changes nothing; an override naming
// another member of the principal is allowed.
func TestPrincipalActsOnlyAsItsMembers(t *testing.T) {
	p := stick.Principal{TokenID: "tok_0123456789abcdef", Name: "Alex's Team", Role: stick.AccessOperator}
	h := newHub(t, p)
	if got := member(p).AgentID; got != "claude-code@alex-s-team" {
		t.Fatalf("member id %s", got)
	}
	before := h.snapshot()
	for _, id := range []string{"human:ana", "claude-code@bob", "claude-code@alex-s-team-2", "x@y@alex-s-team", "@alex-s-team"} {
		_, err := h.as.Post(h.ctx, stick.Caller{AgentID: id, Kind: stick.KindHarness}, h.named, stick.Note{Text: "forged"})
		e := wantCode(t, err, stick.CodeForbidden)
		if e.Details["agent_id"] != id || !strings.Contains(e.Hint, "alex-s-team") {
			t.Fatalf("%s: %+v", id, e)
		}
	}
	_, err := h.as.JoinPath(h.ctx, h.c, stick.JoinRequest{Name: "triage", AgentIDOverride: "human:ana"})
	wantCode(t, err, stick.CodeForbidden)
	// A reclaim token of a member of no principal does not make the
	// principal's member that member.
	if h.peerToken == "" {
		t.Fatal("no reclaim token for the peer")
	}
	_, err = h.as.JoinPath(h.ctx, h.c, stick.JoinRequest{Name: "triage", ReclaimToken: h.peerToken})
	wantCode(t, err, stick.CodeForbidden)
	if after := h.snapshot(); after != before {
		t.Fatalf("refused calls changed the rooms:\nbefore %s\nafter  %s", before, after)
	}
	res, err := h.as.JoinPath(h.ctx, h.c, stick.JoinRequest{Name: "triage", AgentIDOverride: "codex@alex-s-team"})
	if err != nil || res.AgentID != "codex@alex-s-team" {
		t.Fatalf("an override naming a member of the principal: %+v %v", res, err)
	}
}

// A principal that expired is unauthenticated at its next call, with the
// message of a bad token.
func TestExpiredPrincipal(t *testing.T) {
	p := stick.Principal{TokenID: "tok_0123456789abcdef", Name: "temp", Role: stick.AccessOperator, ExpiresAt: epoch.Add(time.Hour)}
	h := newHub(t, p)
	if _, err := h.as.RoomState(h.ctx, h.named); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Hour)
	_, err := h.as.RoomState(h.ctx, h.named)
	e := wantCode(t, err, stick.CodeUnauthenticated)
	_, bad := h.svc.Authenticate(h.ctx, "stk_nope")
	if e.Message != stick.AsError(bad).Message {
		t.Fatalf("an expired principal is told %q, a bad token %q", e.Message, stick.AsError(bad).Message)
	}
}

// A principal limited to some rooms searches only them, whatever rooms
// the query names; joining a name it does not reach is forbidden whether
// the room exists or not, and creates nothing.
func TestScopeLimitsSearchAndJoin(t *testing.T) {
	p := stick.Principal{TokenID: "tok_0123456789abcdef", Name: "triage team", Role: stick.AccessAgent, Rooms: stick.Scope{Names: []string{"triage"}}}
	h := newHub(t, p)
	secret, err := h.svc.JoinPath(h.ctx, h.peer, stick.JoinRequest{Name: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Post(h.ctx, h.peer, secret.RoomID, stick.Note{Text: "hello from secret"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []stick.SearchQuery{
		{Query: "hello"},
		{Query: "hello", InRooms: []string{secret.RoomID, h.named}},
		{Query: "hello", InRooms: []string{secret.RoomID}},
	} {
		hits, err := h.as.Search(h.ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range hits {
			if x.RoomID != h.named {
				t.Fatalf("search %+v found a hit in %s, out of scope", q, x.RoomID)
			}
		}
		if want := !slices.Equal(q.InRooms, []string{secret.RoomID}); (len(hits) > 0) != want {
			t.Fatalf("search %+v: %d hits", q, len(hits))
		}
	}
	if all, _ := h.svc.Search(h.ctx, stick.SearchQuery{Query: "hello"}); len(all) != 2 {
		t.Fatalf("the unrestricted Service finds %d hits, want 2", len(all))
	}
	for _, name := range []string{"secret", "nothing-yet"} {
		_, err := h.as.JoinPath(h.ctx, h.c, stick.JoinRequest{Name: name})
		e := wantCode(t, err, stick.CodeForbidden)
		if !strings.Contains(e.Message, "the room named "+name) || !strings.Contains(e.Message, "it reaches the rooms named triage") {
			t.Fatalf("join %s: %q", name, e.Message)
		}
	}
	if _, err := h.svc.RoomNamed(h.ctx, "nothing-yet"); stick.ErrorCode(err) != stick.CodeRoomNotFound {
		t.Fatalf("a refused join created the room: %v", err)
	}
}

// A Service made by As shares the store, clock and shutdown of the one it
// was made from: Shutdown of either ends the long polls of both.
func TestAsSharesTheService(t *testing.T) {
	p := stick.Principal{TokenID: "tok_0123456789abcdef", Name: "team", Role: stick.AccessAgent}
	h := newHub(t, p)
	if got, ok := h.as.Principal(); !ok || got.Name != "team" {
		t.Fatalf("Principal of As: %+v %v", got, ok)
	}
	if _, ok := h.svc.Principal(); ok {
		t.Fatal("a Service from New acts for a principal")
	}
	h.env.claim(h.peer, h.named)
	done := make(chan error, 1)
	go func() {
		wait := 5 * time.Minute
		_, err := h.as.WaitForTurn(context.Background(), h.c, stick.WaitRequest{RoomID: h.named, MaxWait: &wait})
		done <- err
	}()
	h.svc.Shutdown()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown of the Service did not end a wait of the Service As made")
	}
}
