package mcpserver

import "strings"

// instruction is one line of what the server tells a model at initialize,
// with the tools it names: a server whose tool set lacks one of them leaves
// the line out, so a model is never pointed at a tool it does not have.
type instruction struct {
	tools []string
	text  string
	// remote, when set, replaces text over HTTP (HTTPHandler), where a
	// member is named by its credential and client and no process keeps
	// its lease alive.
	remote string
	// proxy, when set, replaces remote behind a proxy ('stick mcp
	// --server'), whose liveness stream stands for the harness and whose
	// session names the member.
	proxy string
}

// keptLeases is the line on leases of a server that keeps them alive
// between calls: a local 'stick mcp', and a proxy.
const keptLeases = `While you work, every call you make in the room renews your lease, and this server keeps it alive between calls while your harness runs; after presence_ttl_ms without a call it lapses and others may take over. heartbeat(room_id, lease_id, expected_turn_id) renews it explicitly.`

// instructions is the protocol in a few lines, in the order a model uses it.
var instructions = []instruction{
	{nil, `stick lets several agents and people take turns in one workspace: one holder of the "stick" at a time, and every hand-over carries a handoff.`, "", ""},
	{[]string{"list_rooms"}, `Use these tools only when the user asks you to coordinate or take turns with others, or when list_rooms shows a room for your workspace with other active members; otherwise leave them alone.`, "", ""},
	{[]string{"join_path"}, `Join: join_path with your working directory; keep the room_id, agent_id and reclaim_token it returns. After a restart in the same workspace, join_path finds your member again by itself once your old process has exited (the result says found_again); elsewhere, or if it does not, join_path with that reclaim_token.`,
		`Join: join_path with the name of your team's room (a context_path is looked up on the hub's host, not yours); keep the room_id and agent_id it returns. Your member is named by your credential and your client, so after a restart join_path makes you the same member again.`,
		`Join: join_path with the name of your team's room (a context_path is looked up on the hub's host, not yours); keep the room_id and agent_id it returns. Your member is named by your credential, your client and your harness's session, so a restarted harness joins as a new member.`},
	{[]string{"sync", "read_room_doc"}, `To catch up after a restart or in a busy room, sync until has_more is false, then read_room_doc.`, "", ""},
	{[]string{"wait_for_turn"}, `Wait: wait_for_turn(room_id), again while it says not_yet. Do no shared work unless it says your_turn.`, "", ""},
	{nil, `On your_turn, read the handoff first and load its artifacts instead of re-exploring. Keep lease_id and turn_id.`, "", ""},
	{[]string{"heartbeat"}, keptLeases,
		`While you work, every call you make in the room renews your lease, and nothing else does: this server cannot see your process. When you make no other call, heartbeat(room_id, lease_id, expected_turn_id) every heartbeat_interval_ms, or others may take over once owner_lease_ttl_ms passes.`, keptLeases},
	{[]string{"release_stick", "pass_stick"}, `When done (or stuck), release_stick with a truthful handoff: status (what you did, learned, left unfinished), next_action (the one next step), artifacts (files and line ranges). Use pass_stick to hand to a specific member whose status is active or away.`, "", ""},
	{[]string{"wait_for_turn", "leave_path"}, `Then go back to wait_for_turn. When your part is over, leave_path.`, "", ""},
	{[]string{"close_room"}, `When the room's work is finished, close_room.`, "", ""},
	{[]string{"append_note"}, `Without the stick, append_note posts a finding, warning or question; never edit shared files out of turn.`, "", ""},
	{[]string{"read_room_doc", "append_room_doc", "update_room_doc"}, `The room has a shared document for what outlives a turn: read_room_doc reads it; append_room_doc(section "Decisions") records a decision; to rewrite it, read_room_doc, then update_room_doc with the version you read, and on version_conflict read again, merge and retry.`, "", ""},
	{[]string{"search_events"}, `search_events finds earlier notes, handoffs and documents.`, "", ""},
	{[]string{"get_room_state"}, `If a call fails with stale_lease, turn_mismatch or unknown_member, stop working as holder and read get_room_state.`, "", ""},
	{[]string{"takeover_stick", "get_room_events"}, `On takeover_available, call takeover_stick with a reason, then read get_room_events to recover context.`, "", ""},
	{nil, `On closed, the room is over. Never send agent_id: the server derives it.`, "", ""},
}

// Instructions is what a server offering the tool set tells a model at
// initialize: the protocol in a few lines, naming only tools of the set.
func Instructions(tools ToolSet) string { return instructionsFor(tools, false, false) }

// RemoteInstructions is what the HTTP handler (HTTPHandler) offering the
// tool set tells a model: Instructions, but for a member named by its
// credential and client, whose lease only its own calls renew.
func RemoteInstructions(tools ToolSet) string { return instructionsFor(tools, true, false) }

// ProxyInstructions is what a proxy ('stick mcp --server') offering the
// tool set tells a model: RemoteInstructions, but its liveness stream
// stands for the harness, so its lease is kept alive between its calls as
// a local 'stick mcp' keeps it.
func ProxyInstructions(tools ToolSet) string { return instructionsFor(tools, true, true) }

// instructionsFor is Instructions, or RemoteInstructions when remote, or
// ProxyInstructions when also proxied.
func instructionsFor(tools ToolSet, remote, proxied bool) string {
	var lines []string
	for _, in := range instructions {
		ok := true
		for _, name := range in.tools {
			ok = ok && tools.offers(name)
		}
		switch {
		case !ok:
		case proxied && in.proxy != "":
			lines = append(lines, in.proxy)
		case remote && in.remote != "":
			lines = append(lines, in.remote)
		default:
			lines = append(lines, in.text)
		}
	}
	return strings.Join(lines, "\n")
}
