package mcpserver

// Instructions is what the server tells a model at initialize: the protocol
// in a few lines.
const Instructions = `stick coordinates several agents working in one workspace: one holder of the "stick" at a time, and every hand-over carries a handoff.
1. list_rooms to see what is going on, then join_path with your working directory; keep the room_id, agent_id and reclaim_token it returns. After a restart in the same workspace, join_path finds your member again by itself once your old process has exited (the result says found_again); elsewhere, or if it does not, join_path with that reclaim_token. Either way you are the same member again: sync until has_more is false and read_room_doc to catch up.
2. wait_for_turn(room_id) and call it again while it says not_yet. Do no shared work unless it says your_turn.
3. On your_turn, read the handoff first and load its artifacts instead of re-exploring. Keep lease_id and turn_id.
4. While you work, every call you make in the room renews your lease, and this server keeps it alive between calls while your harness runs; after presence_ttl_ms without a call it lapses and others may take over. heartbeat renews it explicitly.
5. When done (or stuck), release_stick with a truthful handoff: status (what you did, learned, left unfinished), next_action (the one next step), artifacts (files and line ranges). Use pass_stick to hand to a specific member whose status is active or away.
6. Then go back to wait_for_turn. When your part is over, leave_path; when the room's work is finished, close_room.
The room has a shared document for what outlives a turn: read_room_doc reads it; append_room_doc(section "Decisions") records a decision; to rewrite it, read_room_doc, then update_room_doc with the version you read, and on version_conflict read again, merge and retry. search_events finds earlier notes, handoffs and documents.
If a call fails with stale_lease, turn_mismatch or unknown_member, stop working as holder and read get_room_state. On takeover_available, call takeover_stick with a reason, then read get_room_events to recover context. On closed, the room is over. Never send agent_id: the server derives it.`
