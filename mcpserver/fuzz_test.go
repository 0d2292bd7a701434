package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// FuzzToolArguments sends arbitrary arguments to every tool through a real
// server session and checks what the MCP frontend promises for any input:
// no protocol error, no panic, no call that blocks; every result matches its
// tool's output schema; every rejection is a structured {"error": {code,
// message}} with a documented code, invalid_argument and invalid_handoff
// name the offending field, and a rejected call (or any call of a read-only
// tool) writes nothing to the database.
//
// The selector byte picks the tool (sel % 26, in toolNames order) and the
// scene the room is brought to before the call (sel / 26 % 4, see scene).
// In the arguments, $ROOM, $LEASE, $TURN, $AGENT, $PEER, $PATH, $TOKEN (the
// fuzz member's reclaim token) and $DOCVERSION (the room document's
// current version) are replaced by the fuzz room's current values (and
// $LONG by a text over the length limits), so the committed corpus
// (testdata/fuzz/FuzzToolArguments) holds valid calls for every tool that
// stay valid across runs, and mutations explore the inputs next to them.
func FuzzToolArguments(f *testing.F) {
	fw := newFuzzWorld(f)
	f.Fuzz(func(t *testing.T, sel byte, args []byte) {
		fw.run(t, sel, args)
	})
}

// scene is the state the fuzz room is brought to before a call, so that
// calls that need a holder, a stale lease or a reservation can succeed.
type scene int

const (
	// sceneHolding: the fuzz member holds the stick with a live lease.
	sceneHolding scene = iota
	// scenePeerHolds: the peer holds the stick with a live lease.
	scenePeerHolds
	// scenePeerStale: the peer holds the stick with an expired lease, so
	// takeover is open to the fuzz member.
	scenePeerStale
	// sceneReserved: the peer passed the stick to the fuzz member, which has
	// not claimed it yet.
	sceneReserved
	numScenes
)

// fuzzCodes are the documented error codes a rejection in the fuzz world may
// carry. The documented codes left out (db_busy, db_schema_mismatch,
// db_corrupt, data_dir_unusable, unsupported_filesystem, search_unavailable,
// canceled, internal) report a broken database, a SQLite without full-text
// search, a cancelled call or a bug; none can be the right answer to
// arguments sent to one healthy in-process server.
var fuzzCodes = []stick.Code{
	stick.CodeInvalidArgument, stick.CodeInvalidHandoff, stick.CodeRoomNotFound, stick.CodeRoomClosed,
	stick.CodeUnknownMember, stick.CodeTurnMismatch, stick.CodeStaleLease, stick.CodeTakeoverNotAvailable,
	stick.CodeTakeoverIneligible, stick.CodeStickHeld, stick.CodeVersionConflict, stick.CodeAgentIDInUse,
	// remove_member of a member whose process is not proven gone.
	stick.CodeForbidden,
}

// callTimeout bounds one fuzzed call. wait_for_turn is made non-blocking and
// the clock is manual, so a call that runs into it is stuck.
const callTimeout = 20 * time.Second

// fuzzWorld is one server over a real database with two members in one
// room: "fuzz", whose connection sends the fuzzed calls, and "peer", which
// only helps bring the room to a scene. db is a separate read connection to
// the same database for the checks.
type fuzzWorld struct {
	w          *world
	db         *sqlite.Conn
	me, peer   *fuzzSession
	meID       string
	peerID     string
	room, path string
	// lastLease is the newest lease id seen in the room, $LEASE while nobody holds the stick.
	lastLease string
	// rooms counts the rooms made after the first, to name their directories.
	rooms int
	// readOnly holds the tools the server annotates as read-only: they
	// write nothing even when they succeed.
	readOnly map[string]bool
	// rows is the database's content at data_version rowsVersion.
	rows        string
	rowsVersion int64
}

// fuzzSession is one client connection with its server side.
type fuzzSession struct {
	cs *mcp.ClientSession
	ss *mcp.ServerSession
}

func (s *fuzzSession) close() {
	s.cs.Close()
	s.ss.Close()
}

// newFuzzWorld builds the server, the test's read connection and both
// members, joined to the room at the repository's root.
func newFuzzWorld(tb testing.TB) *fuzzWorld {
	tb.Helper()
	fw := &fuzzWorld{w: newWorldTB(tb, nil, self(tb)), lastLease: "lease_none", readOnly: map[string]bool{}}
	// The clock is driven past leases here: no connection's lease is kept.
	srv, err := mcpserver.New(mcpserver.Config{Service: fw.w.svc, Harness: self(tb), Version: "test", NoLeaseKeeping: true})
	if err != nil {
		tb.Fatal(err)
	}
	fw.w.srv = srv
	db, err := sqlite.OpenConn(fw.w.db, sqlite.OpenReadOnly|sqlite.OpenWAL)
	if err != nil {
		tb.Fatal(err)
	}
	fw.db = db
	if fw.me, err = fw.dial("fuzz"); err != nil {
		tb.Fatal(err)
	}
	if fw.peer, err = fw.dial("peer"); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		fw.me.close()
		fw.peer.close()
		db.Close()
	})
	tools, err := fw.me.cs.ListTools(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			fw.readOnly[tool.Name] = true
		}
	}
	if len(fw.readOnly) == 0 {
		tb.Fatal("no tool is annotated read-only")
	}
	fw.path = fw.w.repo
	for _, s := range []*fuzzSession{fw.me, fw.peer} {
		r, err := callErr(s.cs, "join_path", obj{"context_path": fw.path})
		if err != nil || r.raw.IsError {
			tb.Fatalf("join: %v %s", err, r.text)
		}
		fw.room, fw.path = r.str("room_id"), r.str("canonical_path")
		if s == fw.me {
			fw.meID = r.str("agent_id")
		} else {
			fw.peerID = r.str("agent_id")
		}
	}
	return fw
}

// dial opens a client connection named name to the world's server.
func (fw *fuzzWorld) dial(name string) (*fuzzSession, error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := fw.w.srv.MCP().Connect(fw.w.ctx, st, nil)
	if err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil).Connect(fw.w.ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, err
	}
	return &fuzzSession{cs: cs, ss: ss}, nil
}

// fuzzOutcome is what one fuzzed call did, for the corpus check.
type fuzzOutcome struct {
	tool string
	// sent is false when the arguments were not JSON and nothing was called.
	sent bool
	// code is the error code of a rejection, "" for a success.
	code string
}

// run makes one fuzzed call and checks it.
func (fw *fuzzWorld) run(t *testing.T, sel byte, raw []byte) fuzzOutcome {
	tool := toolNames[int(sel)%len(toolNames)]
	out := fuzzOutcome{tool: tool}
	fw.prepare(t, scene(int(sel)/len(toolNames)%int(numScenes)))
	args := fw.substitute(raw)
	if !json.Valid(args) {
		return out // the client cannot even encode such a request
	}
	switch tool {
	case "wait_for_turn":
		args = nonBlocking(args, "max_wait_ms", math.MaxInt64/float64(time.Millisecond))
	case "sync":
		args = nonBlocking(args, "wait_seconds", 600)
	}
	out.sent = true
	if tool == "search_events" {
		// The store indexes the log lazily, and a search first indexes
		// what is not yet: index it now, so that only what this call
		// writes counts.
		if _, err := fw.w.svc.Search(context.Background(), stick.SearchQuery{Query: "index"}); err != nil {
			t.Fatalf("bring the search index up to date: %v", err)
		}
	}
	// A read by the holder counts as its heartbeat, so it may renew.
	holds := false
	if r, err := fw.readRoom(); err == nil {
		holds = r.owner == fw.meID
	}
	before := fw.version(t)
	fw.snapshot(t, before) // the rows to compare with should the call write
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	res, err := fw.me.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	cancel()
	if err != nil {
		t.Fatalf("%s %s: protocol error (or blocked for %s): %v", tool, args, callTimeout, err)
	}
	data := checkResult(t, fw.me.cs, tool, args, res)
	if res.IsError {
		e, _ := data["error"].(map[string]any)
		out.code, _ = e["code"].(string)
	}
	if after := fw.version(t); after != before && (res.IsError || (fw.readOnly[tool] && !holds)) {
		what := "rejected with " + out.code
		if !res.IsError {
			what = "read-only, succeeded"
		}
		old := fw.rows
		t.Fatalf("%s %s (%s) wrote to the database (data_version %d -> %d):\n%s", tool, args, what, before, after,
			diffLines(old, fw.snapshot(t, after)))
	}
	if tool == "join_path" && !res.IsError {
		fw.undoOverride(t, data)
	}
	return out
}

// undoOverride restores the fuzz connection's identity after a join that
// set agent_id_override: the overriding member leaves the room it joined
// (so the rotation holds only the fuzz member and the peer) and the
// connection is replaced by a new one, which derives the identity again.
func (fw *fuzzWorld) undoOverride(t *testing.T, joined map[string]any) {
	if id, _ := joined["agent_id"].(string); id == fw.meID {
		return
	}
	room, _ := joined["room_id"].(string)
	if _, err := callErr(fw.me.cs, "leave_path", obj{"room_id": room}); err != nil {
		t.Fatal(err)
	}
	fw.me.close()
	s, err := fw.dial("fuzz")
	if err != nil {
		t.Fatal(err)
	}
	fw.me = s
}

// checkResult checks one result against the frontend's contract and
// returns its structured content.
func checkResult(t *testing.T, cs *mcp.ClientSession, tool string, args []byte, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("%s %s: structured content does not encode: %v", tool, args, err)
	}
	var data map[string]any
	if json.Unmarshal(raw, &data) != nil || data == nil {
		t.Fatalf("%s %s: no structured content object: %s", tool, args, raw)
	}
	schema, err := outputSchema(cs, tool)
	if err != nil {
		t.Fatal(err)
	}
	var instance any
	_ = json.Unmarshal(raw, &instance)
	if err := schema.Validate(instance); err != nil {
		t.Fatalf("%s %s: result does not match the output schema: %v\n%s", tool, args, err, raw)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if text == "" {
		t.Fatalf("%s %s: no text content", tool, args)
	}
	if !res.IsError {
		if _, ok := data["error"]; ok {
			t.Fatalf("%s %s: a success carries an error: %s", tool, args, raw)
		}
		return data
	}
	e, _ := data["error"].(map[string]any)
	code, _ := e["code"].(string)
	msg, _ := e["message"].(string)
	if code == "" || msg == "" {
		t.Fatalf("%s %s: error without code or message: %s", tool, args, raw)
	}
	if !slices.Contains(fuzzCodes, stick.Code(code)) {
		t.Fatalf("%s %s: error code %q is not one a rejection of arguments may carry: %s", tool, args, code, raw)
	}
	if !strings.Contains(text, code) {
		t.Fatalf("%s %s: the text does not name the code %s: %s", tool, args, code, text)
	}
	if code == string(stick.CodeInvalidArgument) || code == string(stick.CodeInvalidHandoff) {
		d, _ := e["details"].(map[string]any)
		if field, _ := d["field"].(string); field == "" {
			t.Fatalf("%s %s: %s without details.field: %s", tool, args, code, raw)
		}
	}
	return data
}

// longText is longer than every limit on free text but a close's
// conclusion, which four of it exceed. It stands in the corpus as $LONG,
// so that entries testing the limits stay small enough to mutate and
// minimise quickly.
var longText = strings.Repeat("x", stick.MaxHandoffText+1)

// substitute replaces the placeholders in args by the room's current values
// and $LONG by longText.
func (fw *fuzzWorld) substitute(args []byte) []byte {
	if !bytes.Contains(args, []byte("$")) {
		return args
	}
	r, _ := fw.readRoom()
	path, _ := json.Marshal(fw.path)
	return []byte(strings.NewReplacer(
		"$ROOM", fw.room,
		"$LEASE", fw.lastLease,
		"$TURN", strconv.FormatInt(r.turn, 10),
		"$AGENT", fw.meID,
		"$PEER", fw.peerID,
		"$PATH", string(path[1:len(path)-1]),
		"$TOKEN", r.tokens[fw.meID],
		"$DOCVERSION", strconv.FormatInt(r.docVersion, 10),
		"$LONG", longText,
	).Replace(string(args)))
}

// nonBlocking makes a wait_for_turn or sync call one attempt: a missing,
// null or positive wait (the field key, up to limit) becomes 0 (the clock
// is manual, so a blocking wait would never end). Anything the server must
// reject (a negative, fractional, too large or mistyped value, arguments
// that are not an object) is kept.
func nonBlocking(args []byte, key string, limit float64) []byte {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return args
	}
	switch v := m[key].(type) {
	case nil:
	case json.Number:
		f, err := v.Float64()
		if err != nil || f <= 0 || f != math.Trunc(f) || f > limit {
			return args
		}
	default:
		return args
	}
	m[key] = 0
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}

// fuzzRoom is the part of the fuzz room's row and members the scenes need.
type fuzzRoom struct {
	found        bool
	closed       bool
	state        string
	owner        string
	reservedFor  string
	turn         int64
	leaseID      string
	leaseExpires time.Time
	claimExpires time.Time
	// policySet is true when the room's policy differs from the defaults.
	policySet bool
	// lastSeen holds each member's last-seen time.
	lastSeen map[string]time.Time
	// tokens holds each member's reclaim token.
	tokens map[string]string
	// docVersion is the room document's current version, 0 if never written.
	docVersion int64
}

// readRoom reads the fuzz room through the test's own connection.
func (fw *fuzzWorld) readRoom() (fuzzRoom, error) {
	r := fuzzRoom{lastSeen: map[string]time.Time{}, tokens: map[string]string{}}
	err := sqlitex.Execute(fw.db, `SELECT state, coalesce(owner, ''), coalesce(reserved_for, ''), turn_id, coalesce(lease_id, ''),
		coalesce(lease_expires_at, 0), coalesce(claim_expires_at, 0), closed_at IS NOT NULL,
		coalesce(owner_lease_ttl_ms, 0) OR coalesce(claim_ttl_ms, 0) OR coalesce(heartbeat_interval_ms, 0) OR
		coalesce(presence_ttl_ms, 0) OR coalesce(wait_max_wait_ms, 0)
		FROM rooms WHERE room_id = ?`, &sqlitex.ExecOptions{Args: []any{fw.room}, ResultFunc: func(st *sqlite.Stmt) error {
		r.found = true
		r.state, r.owner, r.reservedFor = st.ColumnText(0), st.ColumnText(1), st.ColumnText(2)
		r.turn, r.leaseID = st.ColumnInt64(3), st.ColumnText(4)
		r.leaseExpires, r.claimExpires = time.UnixMilli(st.ColumnInt64(5)), time.UnixMilli(st.ColumnInt64(6))
		r.closed = st.ColumnBool(7) || r.state == "closed"
		r.policySet = st.ColumnBool(8)
		return nil
	}})
	if err != nil {
		return r, err
	}
	err = sqlitex.Execute(fw.db, "SELECT agent_id, last_seen_at, coalesce(reclaim_token, '') FROM members WHERE room_id = ?", &sqlitex.ExecOptions{
		Args: []any{fw.room}, ResultFunc: func(st *sqlite.Stmt) error {
			r.lastSeen[st.ColumnText(0)] = time.UnixMilli(st.ColumnInt64(1))
			r.tokens[st.ColumnText(0)] = st.ColumnText(2)
			return nil
		}})
	if err != nil {
		return r, err
	}
	err = sqlitex.Execute(fw.db, "SELECT version FROM docs WHERE room_id = ?", &sqlitex.ExecOptions{
		Args: []any{fw.room}, ResultFunc: func(st *sqlite.Stmt) error {
			r.docVersion = st.ColumnInt64(0)
			return nil
		}})
	if r.leaseID != "" {
		fw.lastLease = r.leaseID
	}
	return r, err
}

// prepare brings the fuzz room to want, in a new room when the current one
// is closed or stuck (another member holds it or is reserved for it).
func (fw *fuzzWorld) prepare(t *testing.T, want scene) {
	t.Helper()
	for range 3 {
		done, err := fw.settle(want)
		if err != nil {
			t.Fatalf("preparing scene %d in room %s: %v", want, fw.room, err)
		}
		if done {
			return
		}
		if err := fw.newRoom(); err != nil {
			t.Fatalf("preparing scene %d: %v", want, err)
		}
	}
	t.Fatalf("cannot bring room %s to scene %d", fw.room, want)
}

// settle takes the room step by step towards want. It reports false when
// the room cannot get there (it is closed, or a member other than the two
// holds it or has it reserved).
func (fw *fuzzWorld) settle(want scene) (bool, error) {
	for range 12 {
		r, err := fw.readRoom()
		if err != nil {
			return false, err
		}
		if !r.found || r.closed {
			return false, nil
		}
		now := fw.w.clock.Now()
		var s *fuzzSession
		var tool string
		var args obj
		lease := obj{"room_id": fw.room, "lease_id": r.leaseID, "expected_turn_id": r.turn}
		passTo := func(who *fuzzSession, to string) {
			s, tool, args = who, "pass_stick", with(lease, "to_agent_id", to, "handoff", handoff("scene change"))
		}
		claim := func(who *fuzzSession) {
			s, tool, args = who, "wait_for_turn", obj{"room_id": fw.room, "max_wait_ms": 0}
		}
		renew := func(who *fuzzSession) { s, tool, args = who, "heartbeat", lease }
		mine, peers := r.owner == fw.meID, r.owner == fw.peerID
		live := r.leaseExpires.After(now)
		switch {
		case now.Sub(r.lastSeen[fw.meID]) > time.Hour:
			s, tool, args = fw.me, "join_path", obj{"context_path": fw.path}
		case now.Sub(r.lastSeen[fw.peerID]) > time.Hour:
			s, tool, args = fw.peer, "join_path", obj{"context_path": fw.path}
		case r.policySet:
			s, tool, args = fw.peer, "set_room_policy", obj{"room_id": fw.room, "owner_lease_ttl_ms": 0, "claim_ttl_ms": 0,
				"heartbeat_interval_ms": 0, "presence_ttl_ms": 0, "wait_for_turn_max_wait_ms": 0}
		case r.state == "owned" && !mine && !peers, r.state == "reserved" && r.reservedFor != fw.meID && r.reservedFor != fw.peerID:
			return false, nil
		case r.state == "idle" && want == sceneHolding:
			claim(fw.me)
		case r.state == "idle":
			claim(fw.peer)
		case r.state == "reserved" && r.reservedFor == fw.peerID:
			claim(fw.peer)
		case r.state == "reserved" && (want != sceneReserved || !r.claimExpires.After(now)):
			claim(fw.me)
		case r.state == "reserved":
			return true, nil
		case mine && want == sceneHolding && !live:
			renew(fw.me)
		case mine && want == sceneHolding:
			return true, nil
		case mine:
			passTo(fw.me, fw.peerID)
		case want == sceneHolding || want == sceneReserved:
			passTo(fw.peer, fw.meID)
		case want == scenePeerStale && live:
			fw.w.clock.Advance(r.leaseExpires.Sub(now) + time.Second)
			continue
		case want == scenePeerStale:
			return true, nil
		case want == scenePeerHolds && !live:
			renew(fw.peer)
		default:
			return true, nil
		}
		res, err := callErr(s.cs, tool, args)
		if err != nil {
			return false, err
		}
		if res.raw.IsError {
			return false, nil
		}
		if tool == "join_path" && res.str("room_id") != fw.room {
			return false, nil
		}
		if tool == "wait_for_turn" && res.str("status") != string(stick.YourTurn) {
			return false, nil
		}
	}
	return false, nil
}

// newRoom starts a room for the two members: at the same path when the
// current room is closed (join_path with force_new), else in a new
// directory of the repository.
func (fw *fuzzWorld) newRoom() error {
	r, err := fw.readRoom()
	if err != nil {
		return err
	}
	path := fw.path
	if r.found && !r.closed {
		fw.rooms++
		path = filepath.Join(fw.w.repo, fmt.Sprintf("fuzz-room-%d", fw.rooms))
		if err := os.MkdirAll(path, 0o755); err != nil {
			return err
		}
	}
	old := fw.room
	for _, s := range []*fuzzSession{fw.me, fw.peer} {
		res, err := callErr(s.cs, "join_path", obj{"context_path": path, "force_new": true})
		if err != nil {
			return err
		}
		if res.raw.IsError {
			return fmt.Errorf("join_path %s: %s", path, res.text)
		}
		fw.room, fw.path = res.str("room_id"), res.str("canonical_path")
	}
	if fw.room == old {
		return fmt.Errorf("join_path %s with force_new kept room %s", path, old)
	}
	return nil
}

// version returns the database's data_version as the test's connection
// sees it: it changes whenever another connection commits a transaction.
func (fw *fuzzWorld) version(t *testing.T) int64 {
	t.Helper()
	var v int64
	err := sqlitex.ExecuteTransient(fw.db, "PRAGMA data_version", &sqlitex.ExecOptions{
		ResultFunc: func(st *sqlite.Stmt) error { v = st.ColumnInt64(0); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// snapshot returns the database's content at data_version v, reading it
// again only when v moved since the last read: every row of every ordinary
// table but events, and of events (append-only, enforced by triggers) the row
// count, the highest event_seq and the newest rows.
func (fw *fuzzWorld) snapshot(t *testing.T, v int64) string {
	t.Helper()
	if v == fw.rowsVersion && fw.rows != "" {
		return fw.rows
	}
	var tables []string
	// Ordinary tables only: the full-text index (a virtual table and its
	// shadow tables) is kept by triggers from events and docs, so it
	// changes only with them.
	err := sqlitex.Execute(fw.db, `SELECT s.name FROM sqlite_schema s JOIN pragma_table_list l ON l.schema = 'main' AND l.name = s.name
		WHERE s.type = 'table' AND l.type = 'table' ORDER BY s.name`, &sqlitex.ExecOptions{
		ResultFunc: func(st *sqlite.Stmt) error { tables = append(tables, st.ColumnText(0)); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var table string
	row := func(st *sqlite.Stmt) error {
		b.WriteString(table + ":")
		for i := range st.ColumnCount() {
			b.WriteString(" ")
			if st.ColumnType(i) == sqlite.TypeNull {
				b.WriteString("NULL")
			} else {
				b.WriteString(strconv.Quote(st.ColumnText(i)))
			}
		}
		b.WriteString("\n")
		return nil
	}
	readErr := func() (err error) {
		defer sqlitex.Transaction(fw.db)(&err)
		for _, name := range tables {
			table = name
			q := fmt.Sprintf("SELECT * FROM %q ORDER BY rowid", name)
			if name == "events" {
				table = "events (count, max event_seq)"
				if err := sqlitex.Execute(fw.db, "SELECT count(*), max(rowid) FROM events", &sqlitex.ExecOptions{ResultFunc: row}); err != nil {
					return err
				}
				table = "events"
				q = "SELECT * FROM events WHERE rowid > (SELECT max(rowid) FROM events) - 10 ORDER BY rowid"
			}
			if err := sqlitex.Execute(fw.db, q, &sqlitex.ExecOptions{ResultFunc: row}); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	}()
	if readErr != nil {
		t.Fatal(readErr)
	}
	fw.rows, fw.rowsVersion = b.String(), v
	return fw.rows
}

// diffLines lists the lines only in before (-) and only in after (+).
func diffLines(before, after string) string {
	was := strings.Split(before, "\n")
	is := strings.Split(after, "\n")
	var b strings.Builder
	for _, l := range was {
		if !slices.Contains(is, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range is {
		if !slices.Contains(was, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	if b.Len() == 0 {
		return "(no row differs: a transaction committed without a visible change)"
	}
	return b.String()
}
