package server

import (
	"net/http"
	"reflect"
	"slices"

	"github.com/stickhq/stick/liveness"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/web"
)

// Paths of the API.
const (
	apiPrefix = "/api/v1"
	roomPath  = apiPrefix + "/rooms/{room_id}"
)

// Error codes documented per endpoint, besides commonCodes.
var (
	roomCodes   = []stick.Code{stick.CodeRoomNotFound}
	memberCodes = []stick.Code{stick.CodeRoomNotFound, stick.CodeRoomClosed, stick.CodeUnknownMember, stick.CodeAgentIDInUse}
	leaseCodes  = append(slices.Clone(memberCodes), stick.CodeTurnMismatch, stick.CodeStaleLease)
	handCodes   = append(slices.Clone(leaseCodes), stick.CodeInvalidHandoff)
	docCodes    = append(slices.Clone(memberCodes), stick.CodeVersionConflict)
	writeCodes  = []stick.Code{CodeIdempotencyKeyReused, CodeTooLarge}
)

// with returns codes and the codes of a write.
func with(codes ...[]stick.Code) []stick.Code {
	var out []stick.Code
	for _, c := range codes {
		out = append(out, c...)
	}
	return out
}

// apiRoutes are the endpoints of the JSON API: one for every MCP tool,
// the export, a team's session, and a proxy's waking of its harness.
func apiRoutes() []route {
	g, p, put := http.MethodGet, http.MethodPost, http.MethodPut
	rts := []route{
		endpoint(g, apiPrefix+"/rooms", "list_rooms", "List the rooms (every one, or those of a path, a key or a name)", nil, listRooms),
		endpoint(p, apiPrefix+"/rooms", "join_path", "Join a room by name (made if none is open), by key, or by a path on the hub's host",
			with(writeCodes, []stick.Code{stick.CodeRoomNotFound, stick.CodeAgentIDInUse}), joinRoom),
		endpoint(g, roomPath, "get_room_state", "Read a room: holder, turn, state, members and the pending handoff", roomCodes, roomState),
		endpoint(p, roomPath+"/wait", "wait_for_turn", "Claim the stick, or wait for it up to max_wait_ms (a long poll)", with(writeCodes, memberCodes), waitTurn),
		endpoint(p, roomPath+"/heartbeat", "heartbeat", "Renew the holder's lease", with(writeCodes, leaseCodes), heartbeat),
		endpoint(p, roomPath+"/release", "release_stick", "End the turn with a handoff; the stick goes to the next member", with(writeCodes, handCodes), release),
		endpoint(p, roomPath+"/pass", "pass_stick", "End the turn with a handoff to one member", with(writeCodes, handCodes), pass),
		endpoint(p, roomPath+"/takeover", "takeover_stick", "Take the stick of a failed turn",
			with(writeCodes, memberCodes, []stick.Code{stick.CodeTurnMismatch, stick.CodeTakeoverNotAvailable, stick.CodeTakeoverIneligible}), takeover),
		endpoint(p, roomPath+"/leave", "leave_path", "Leave the room's member sequence", with(writeCodes, memberCodes, []stick.Code{stick.CodeStickHeld}), leave),
		endpoint(p, roomPath+"/close", "close_room", "Close the room for good, with a conclusion (an agent not responsible for the conclusion asks the member who is)", with(writeCodes, memberCodes, []stick.Code{stick.CodeStickHeld}), closeRoom),
		endpoint(p, roomPath+"/policy", "set_room_policy", "Change the room's timeouts", with(writeCodes, memberCodes, []stick.Code{stick.CodeStickHeld}), setPolicy),
		endpoint(p, roomPath+"/reorder", "reorder_members", "Set the order the stick goes round in", with(writeCodes, memberCodes), reorder),
		endpoint(g, roomPath+"/events", "get_room_events", "Read the room's log after a cursor; with wait_ms, wait for the next events (a long poll)", roomCodes, roomEvents),
		endpoint(p, roomPath+"/notes", "append_note", "Post a note", with(writeCodes, memberCodes), postNote),
		endpoint(p, roomPath+"/sync", "sync", "Post an outbox, then get the events not yet given to you", with(writeCodes, memberCodes), syncRoom),
		endpoint(g, roomPath+"/doc", "read_room_doc", "Read the room's document", roomCodes, readDoc),
		endpoint(put, roomPath+"/doc", "update_room_doc", "Replace the document if it is still at expected_version", with(writeCodes, docCodes), updateDoc),
		endpoint(p, roomPath+"/doc/append", "append_room_doc", "Add markdown to the end of the document or of a section", with(writeCodes, memberCodes), appendDoc),
		endpoint(g, roomPath+"/doc/history", "room_doc_history", "List the document's versions", roomCodes, docHistory),
		endpoint(g, roomPath+"/channels", "list_channels", "List the room's channels with their counts and last activity", roomCodes, listChannels),
		endpoint(g, roomPath+"/history", "read_history", "Read the room's newest events that match every filter (channel, sender, type, time), oldest first", roomCodes, history),
		endpoint(p, roomPath+"/handle", "set_handle", "Choose your handle in the room", with(writeCodes, memberCodes), setHandle),
		endpoint(g, roomPath+"/me", "get_my_handle", "Read your identity in the room: handle, agent id, display name", memberCodes, whoAmI),
		endpoint(p, roomPath+"/standby", "standby", "Stay a member without taking turns (or, with off, take turns again)", with(writeCodes, memberCodes), standby),
		endpoint(p, roomPath+"/remove", "remove_member", "Remove a member from the sequence: an operator any member, an agent one whose process is proven gone",
			with(writeCodes, memberCodes, []stick.Code{stick.CodeForbidden}), removeMember),
		endpoint(g, apiPrefix+"/search", "search_events", "Search the rooms' logs and documents, best first", []stick.Code{stick.CodeSearchUnavailable}, search),
	}
	ex := endpoint(g, roomPath+"/export", "", "Export the room: state, members, document and every event, as markdown or JSON", roomCodes, export)
	ex.op, ex.out, ex.text = "export_room", reflect.TypeFor[stick.Transcript](), "text/markdown"
	members := endpoint(g, roomPath+"/members", "", "Read who has joined the room; with min and wait_ms, wait until that many have (a long poll)", roomCodes, roomMembers)
	members.op = "room_members"
	concluder := endpoint(p, roomPath+"/concluder", "", "Name the member responsible for the room's conclusion (an operator, or that member itself)",
		with(writeCodes, memberCodes), setConcluder)
	concluder.op = "set_concluder"
	register := endpoint(p, roomPath+"/wake/register", "", "Record how your harness session can be woken: the names of its transports ('stick mcp --server' calls it after a join)",
		with(writeCodes, memberCodes), registerWake)
	register.op = "register_wake"
	await := endpoint(p, roomPath+"/wake/await", "", "Wait up to wait_ms until a wake of your session is due, and claim it: once per unread batch (a long poll; 'stick mcp --server' delivers it)",
		with(writeCodes, memberCodes), awaitWake)
	await.op = "await_wake"
	report := endpoint(p, roomPath+"/wake/report", "", "Record how the last wake went: its transport and state, shown as wake.last_state in the room's state",
		with(writeCodes, memberCodes), reportWake)
	report.op = "report_wake"
	rts = append(rts, ex, members, concluder, register, await, report)
	for i := range rts {
		switch rts[i].tool {
		case "get_room_state", "get_room_events", "read_room_doc", "room_doc_history", "list_channels", "read_history":
			rts[i].attend = true
		}
	}
	return rts
}

// routes builds the hub's handler: the checks every request passes, then
// the endpoints.
func (s *Server) routes() http.Handler {
	api := http.NewServeMux()
	methods := map[string][]string{}
	for _, rt := range apiRoutes() {
		api.Handle(rt.method+" "+rt.pattern, s.serveRoute(rt))
		methods[rt.pattern] = append(methods[rt.pattern], rt.method)
	}
	for pattern, ms := range methods {
		api.Handle(pattern, s.allowed(ms))
	}
	api.Handle("GET "+apiPrefix+"/openapi.json", s.named("GET "+apiPrefix+"/openapi.json", http.HandlerFunc(serveOpenAPI)))
	api.Handle("GET /metrics", s.named("GET /metrics", s.metrics.handler()))
	if s.cfg.MCP != nil {
		api.Handle("/mcp", s.named("/mcp", s.cfg.MCP))
	}
	api.Handle(livenessRoute, s.named(livenessRoute, http.HandlerFunc(s.serveLiveness)))
	api.Handle(liveness.Path, s.allowed([]string{http.MethodPost}))
	api.HandleFunc("/", s.notFound)

	top := http.NewServeMux()
	top.Handle("GET /healthz", s.named("GET /healthz", http.HandlerFunc(s.health)))
	top.Handle(metadataPath, s.named(metadataPath, s.metadata()))
	top.Handle("GET "+agentsPath, s.named("GET "+agentsPath, http.HandlerFunc(s.serveAgents)))
	for _, pattern := range web.Paths {
		top.Handle(pattern, s.named(pattern, s.page))
	}
	top.Handle("/", s.authenticate(api))
	return s.observe(s.guard(top))
}

// named marks the requests h serves with its route, for logs and metrics.
func (s *Server) named(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		infoOf(r).route = route
		h.ServeHTTP(w, r)
	})
}
