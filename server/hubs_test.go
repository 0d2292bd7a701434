package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
)

// Several hubs on one PostgreSQL database: each is a 'stick serve
// --database URL' process, and any of them serves any room.

// wakeBound is how soon a long poll on one hub must answer a release made
// through another: the NOTIFY of the commit, heard by the first hub's
// listening connection, wakes it. A waiter also looks again now and then
// by itself (after 0.25, 0.75, 1.75, 3.75 s, ... in a room of the default
// policy), so the release comes pastRefresh after the poll began: the
// next look by itself is then more than wakeBound away, and only the
// notification can answer the poll in time.
const (
	wakeBound   = time.Second
	pastRefresh = 2 * time.Second
)

// pgHub starts 'stick serve --database dbURL'.
func pgHub(t *testing.T, dbURL string) *hub {
	t.Helper()
	return startHub(t, "", nil, "--database", dbURL)
}

// pgToken makes a token named name with 'stick --database dbURL token
// create NAME --json', as an operator on any host of the team would, and
// returns its secret; flags are more flags of it ("--role", "operator").
func pgToken(t *testing.T, dbURL, name string, flags ...string) string {
	t.Helper()
	args := append([]string{"--database", dbURL, "token", "create", name, "--json"}, flags...)
	p := testproc.StartEnv(t, []string{"TALKING_STICK_DATA_DIR=" + t.TempDir()}, "stick", args...)
	var out strings.Builder
	for {
		line, err := p.ReadLine(30 * time.Second)
		if err != nil {
			break
		}
		out.WriteString(line)
	}
	if code, err := p.Wait(); code != 0 || err != nil {
		t.Fatalf("stick token create %s: exit %d %v\n%s", name, code, err, p.Stderr())
	}
	var tok struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(out.String()), &tok); err != nil || tok.Secret == "" {
		t.Fatalf("stick token create %s --json printed %q: %v", name, out.String(), err)
	}
	return tok.Secret
}

// openDB opens a Store and a Service of the test's own on dbURL, as a
// direct client beside the hubs; both close when t ends.
func openDB(t *testing.T, dbURL string) *stick.Service {
	t.Helper()
	st, err := postgres.Open(context.Background(), dbURL, postgres.Options{})
	if err != nil {
		t.Fatalf("open the database: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// grants returns the turn ids of the grant events (claims and takeovers)
// of room, in the log's order, and the handoff statuses of its release
// events by turn.
func grants(t *testing.T, svc *stick.Service, room string) (turns []int64, handoffs map[int64]string) {
	t.Helper()
	handoffs = map[int64]string{}
	for after := int64(0); ; {
		page, err := svc.RoomEvents(context.Background(), room, after, stick.MaxEventLimit)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range page.Events {
			switch ev.Type {
			case stick.EventClaim, stick.EventTakeover:
				turns = append(turns, ev.TurnID)
			case stick.EventRelease:
				if ev.Handoff != nil {
					handoffs[ev.TurnID] = ev.Handoff.Status
				}
			}
		}
		after = page.Cursor
		if !page.HasMore {
			return turns, handoffs
		}
	}
}

// onlyRoom returns the id of the database's one room.
func onlyRoom(t *testing.T, svc *stick.Service) string {
	t.Helper()
	rooms, err := svc.ListRooms(context.Background(), "")
	if err != nil || len(rooms) != 1 {
		t.Fatalf("rooms: %v %v; want one", rooms, err)
	}
	return rooms[0].RoomID
}

// lineCount is the number of lines in the file at path.
func lineCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// checkGrants fails t unless the log granted turns 1, 2, ..., n, each
// once, and returns n.
func checkGrants(t *testing.T, turns []int64) int64 {
	t.Helper()
	for i, turn := range turns {
		if turn != int64(i+1) {
			t.Fatalf("grant %d of the log is turn %d: every turn must be granted once, in order; grants %v", i+1, turn, turns)
		}
	}
	return int64(len(turns))
}

// Tokens made once on the database are known to every hub on it. A room
// made through one hub is the same room through the other: joined,
// written (a note, the document) and read through either. A member's long
// poll on hub A answers within wakeBound when another member releases
// through hub B, with the turn and the handoff of that release and its
// giver; and the same the other way round.
func TestHubsShareOneDatabase(t *testing.T) {
	u := pgtest.URL(t)
	anaToken, bobToken := pgToken(t, u, "ana-team"), pgToken(t, u, "bob-team")
	a, b := pgHub(t, u), pgHub(t, u)
	for _, h := range []*hub{a, b} {
		h.client("", "nobody").fails(http.StatusUnauthorized, "unauthenticated", get, "/api/v1/rooms", nil)
	}
	ana, bob := a.client(anaToken, "ana"), b.client(bobToken, "bob")

	jb := bob.ok(post, "/api/v1/rooms", map[string]any{"name": "shared"})
	ja := ana.ok(post, "/api/v1/rooms", map[string]any{"name": "shared"})
	if jb["created"] != true || ja["created"] != false || ja["room_id"] != jb["room_id"] {
		t.Fatalf("a room made through hub B, joined through hub A: B %v, A %v", jb, ja)
	}
	room := "/api/v1/rooms/" + str(jb, "room_id")
	anaID, bobID := str(ja, "agent_id"), str(jb, "agent_id")

	seq := num(obj(ana.ok(post, room+"/notes", map[string]any{"text": "written through hub A"}), "event"), "event_seq")
	bob.ok(post, room+"/doc/append", map[string]any{"text": "written through hub B"})
	if evs := bob.ok(get, room+"/events?after="+itoa(seq-1), nil); len(list(evs, "events")) == 0 ||
		str(list(evs, "events")[0].(map[string]any), "text") != "written through hub A" {
		t.Fatalf("hub B's events after a note through hub A: %v", evs)
	}
	if doc := ana.ok(get, room+"/doc", nil); !strings.Contains(fmt.Sprint(doc), "written through hub B") {
		t.Fatalf("hub A's document after an append through hub B: %v", doc)
	}

	w := bob.ok(post, room+"/wait", map[string]any{"max_wait_ms": 0})
	if str(w, "status") != "your_turn" || num(w, "turn_id") != 1 {
		t.Fatalf("bob's claim through hub B: %v", w)
	}
	lease := w
	for i, step := range []struct {
		holder, waiter *client
		from, to       string
	}{{bob, ana, bobID, anaID}, {ana, bob, anaID, bobID}} {
		turn := num(lease, "turn_id")
		waited := make(chan answer, 1)
		go func() { waited <- step.waiter.do(post, room+"/wait", map[string]any{"max_wait_ms": 60000}) }()
		step.waiter.polls(1)
		time.Sleep(pastRefresh)
		handoff := fmt.Sprintf("turn %d, released through the other hub", turn)
		released := time.Now()
		step.holder.ok(post, room+"/release", map[string]any{"lease_id": str(lease, "lease_id"), "expected_turn_id": turn,
			"handoff": map[string]any{"status": handoff, "next_action": "carry on"}})
		var got answer
		select {
		case got = <-waited:
		case <-time.After(30 * time.Second):
			t.Fatalf("step %d: the long poll did not answer within 30 s of the release through the other hub", i+1)
		}
		took := time.Since(released)
		m := got.json(t)
		if got.status != http.StatusOK || str(m, "status") != "your_turn" || num(m, "turn_id") != turn+1 ||
			str(obj(m, "handoff"), "status") != handoff || str(m, "from_agent_id") != step.from || str(m, "agent_id") != step.to {
			t.Fatalf("step %d: the long poll answered %d %v; want your_turn, turn %d, the handoff %q from %s", i+1, got.status, m, turn+1, handoff, step.from)
		}
		if took > wakeBound {
			t.Fatalf("step %d: the long poll answered %v after the release through the other hub; want within %v", i+1, took, wakeBound)
		}
		t.Logf("step %d: a long poll answered %v after a release through the other hub", i+1, took)
		lease = m
	}
}

// contention is a run of contenders: each a process of its own, acting
// through a hub's JSON API or on the database directly.
type contention struct {
	t     *testing.T
	check string
	procs []*testproc.Proc
	names []string
}

// startContention starts one contender per target (a hub, or nil for a
// direct client on dbURL) in the room name for span, waits until each
// joined, and lets them go.
func startContention(t *testing.T, dbURL, name string, span time.Duration, targets ...*hub) *contention {
	t.Helper()
	c := &contention{t: t, check: filepath.Join(t.TempDir(), "critical-section")}
	if err := os.WriteFile(c.check, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ms := strconv.FormatInt(span.Milliseconds(), 10)
	for i, h := range targets {
		mode, target, who := "db", dbURL, fmt.Sprintf("direct-%d", i)
		if h != nil {
			mode, target, who = "hub", h.url, fmt.Sprintf("via-%s-%d", strings.TrimPrefix(h.url, "http://127.0.0.1:"), i)
		}
		p := testproc.Start(t, "contend", mode, target, who, name, ms, c.check)
		line, err := p.ReadLine(60 * time.Second)
		if err != nil || !strings.HasPrefix(line, "joined ") {
			t.Fatalf("contender %s: %q %v\n%s", who, line, err, p.Stderr())
		}
		c.procs, c.names = append(c.procs, p), append(c.names, strings.TrimPrefix(line, "joined "))
	}
	for _, p := range c.procs {
		if _, err := p.Stdin().Write([]byte("go\n")); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// tally is what the contenders reported at their end.
type tally struct {
	grants, takeovers, unavailable, unsure int
	perMember                              map[string]int
}

// finish waits for every contender's "done" line and exit, and returns
// their counts; a contender that reported an error fails t.
func (c *contention) finish(timeout time.Duration) tally {
	t := c.t
	t.Helper()
	tl := tally{perMember: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, p := range c.procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			line, err := p.ReadLine(timeout)
			var g, to, un, us int
			if err != nil || !strings.HasPrefix(line, "done ") {
				t.Errorf("contender %s: %q %v\n%s", c.names[i], line, err, p.Stderr())
				return
			}
			if _, err := fmt.Sscanf(line, "done %d %d %d %d", &g, &to, &un, &us); err != nil {
				t.Errorf("contender %s: %q: %v", c.names[i], line, err)
				return
			}
			if code, err := p.Wait(); code != 0 || err != nil {
				t.Errorf("contender %s exited %d %v\n%s", c.names[i], code, err, p.Stderr())
			}
			mu.Lock()
			defer mu.Unlock()
			tl.grants, tl.takeovers, tl.unavailable, tl.unsure = tl.grants+g, tl.takeovers+to, tl.unavailable+un, tl.unsure+us
			tl.perMember[c.names[i]] = g
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return tl
}

// witness checks the check file and fails t at any violation.
func (c *contention) witness() *witness {
	c.t.Helper()
	b, err := os.ReadFile(c.check)
	if err != nil {
		c.t.Fatal(err)
	}
	w := checkWitness(b)
	for _, v := range w.violations {
		c.t.Error(v)
	}
	if len(w.violations) > 0 {
		c.t.FailNow()
	}
	return w
}

// contendPolicy is the room's policy for the contention: a lease and a
// claim time short enough that a turn whose answer a cut lost is taken
// over within seconds.
var contendPolicy = map[string]any{"owner_lease_ttl_ms": 5000, "claim_ttl_ms": 2000, "heartbeat_interval_ms": 1000}

// setPolicy joins room name through h as "setup", sets policy, and leaves.
func setPolicy(t *testing.T, h *hub, name string, policy map[string]any) {
	t.Helper()
	c := h.client("", "setup")
	room := "/api/v1/rooms/" + str(c.ok(post, "/api/v1/rooms", map[string]any{"name": name}), "room_id")
	c.ok(post, room+"/policy", policy)
	c.ok(post, room+"/leave", map[string]any{})
}

// Eight processes contend for one room for a few seconds: three through
// hub A's JSON API, three through hub B's, and two on the database
// directly. The critical-section witness shows no two holders at once,
// turns entered 1, 2, 3, ... and every handoff received by the next
// holder; the log granted each of those turns once, with the handoff each
// holder left; everyone got turns, and nobody had to take over.
func TestHubsContention(t *testing.T) {
	u := pgtest.URL(t)
	a, b := pgHub(t, u), pgHub(t, u)
	setPolicy(t, a, "contended", contendPolicy)
	c := startContention(t, u, "contended", 4*time.Second, a, a, a, b, b, b, nil, nil)
	tl := c.finish(time.Minute)
	w := c.witness()
	svc := openDB(t, u)
	turns, handoffs := grants(t, svc, onlyRoom(t, svc))
	n := checkGrants(t, turns)
	if n != w.last || int(n) != tl.grants || len(w.enters) != tl.grants {
		t.Fatalf("the log granted %d turns, the witness saw %d entered (the last %d), the contenders reported %d", n, len(w.enters), w.last, tl.grants)
	}
	for turn := int64(1); turn < n; turn++ {
		if want := handoffToken(w.enters[turn].agent, turn); handoffs[turn] != want {
			t.Fatalf("the log's release of turn %d carries %q; its holder left %q", turn, handoffs[turn], want)
		}
	}
	if tl.takeovers != 0 || w.takeovers() != 0 || tl.unavailable != 0 {
		t.Fatalf("%d takeovers (witness: %d), %d db_unavailable answers in a contention without faults", tl.takeovers, w.takeovers(), tl.unavailable)
	}
	const minGrants = 40
	if n < minGrants {
		t.Fatalf("%d grants in 4 s among 8 processes; want at least %d", n, minGrants)
	}
	for name, g := range tl.perMember {
		if g == 0 {
			t.Fatalf("%s never got the stick: %v", name, tl.perMember)
		}
	}
	t.Logf("%d grants, 0 violations; per member %v", n, tl.perMember)
}

// hubRole makes a PostgreSQL role of its own for a hub, so that its
// connections can be told from the others' in pg_stat_activity (the
// store names every connection "stick" or "stick-listen"), and returns
// dbURL with that user. The role is a superuser, so the server's user
// must be one (as in pgtest's throwaway cluster); it is dropped when t
// ends.
func hubRole(t *testing.T, dbURL, role string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `CREATE ROLE "`+role+`" LOGIN SUPERUSER`)
	conn.Close(ctx)
	if err != nil {
		t.Fatalf("make a role of its own for a hub, to tell its connections from the others': %v; "+
			"the test needs a superuser of its PostgreSQL server (pgtest's throwaway cluster, or %s naming one)", err, pgtest.URLEnv)
	}
	t.Cleanup(func() { admin(t, dbURL, `DROP ROLE IF EXISTS "`+role+`"`) })
	p, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	p.User = url.User(role)
	return p.String()
}

// admin runs one statement on dbURL and returns the first column of its
// rows.
func admin(t *testing.T, dbURL, sql string, args ...any) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		if len(vals) > 0 {
			out = append(out, fmt.Sprint(vals[0]))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// cutOff terminates every connection of role to dbURL's database, as a
// failover or a network cut would end them, and returns the
// application_name of each.
func cutOff(t *testing.T, dbURL, role string) []string {
	t.Helper()
	var names []string
	for _, pa := range admin(t, dbURL, `SELECT pid || ' ' || application_name FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND usename = $1`, role) {
		pid, name, _ := strings.Cut(pa, " ")
		if ok := admin(t, dbURL, "SELECT pg_terminate_backend($1::int, 10000)", pid); len(ok) == 1 && ok[0] == "true" {
			names = append(names, name)
		}
	}
	return names
}

// retried sends a request until it is answered otherwise than 503
// db_unavailable (with Retry-After, as every 503 must be), for up to 15 s,
// and returns that answer and how many 503s came before it.
func (c *client) retried(method, path string, body any) (answer, int) {
	c.h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for n := 0; ; n++ {
		a := c.do(method, path, body)
		if a.status != http.StatusServiceUnavailable {
			return a, n
		}
		if code := a.code(c.h.t); code != string(stick.CodeDBUnavailable) || a.header.Get("Retry-After") == "" {
			c.h.t.Fatalf("%s %s: 503 %s, Retry-After %q; want db_unavailable with Retry-After", method, path, code, a.header.Get("Retry-After"))
		}
		if time.Now().After(deadline) {
			c.h.t.Fatalf("%s %s: still db_unavailable after 15 s: %s", method, path, a.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startRole opens a Store on dbURL first, which brings the schema up to
// date as the cluster's own user (so that a hub's role owns nothing and
// can be dropped), and returns the URL of a role of its own for hub A.
func startRole(t *testing.T, dbURL string) (svc *stick.Service, role, roleURL string) {
	t.Helper()
	svc = openDB(t, dbURL)
	role = fmt.Sprintf("stick_hub_a_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	return svc, role, hubRole(t, dbURL, role)
}

// While a member holds the stick through hub A and another waits there in
// a long poll, every connection of hub A to the database is terminated.
// Every answer of hub A meanwhile is a success or 503 db_unavailable with
// Retry-After, never a driver's error; hub A recovers by itself: the
// holder's heartbeat and release go through, the waiter's long poll gets
// turn 2 with the handoff, and once hub A listens again a long poll there
// is answered within wakeBound of a release through hub B. The released
// lease is refused afterwards, and the log granted turns 1 to 4 once each.
func TestHubCutOffMidTurn(t *testing.T) {
	u := pgtest.URL(t)
	svc, role, roleURL := startRole(t, u)
	a, b := pgHub(t, roleURL), pgHub(t, u)
	ana, bob, carol := a.client("", "ana"), a.client("", "bob"), b.client("", "carol")
	j := ana.ok(post, "/api/v1/rooms", map[string]any{"name": "cut"})
	room := "/api/v1/rooms/" + str(j, "room_id")
	bobID := str(bob.ok(post, "/api/v1/rooms", map[string]any{"name": "cut"}), "agent_id")
	carolID := str(carol.ok(post, "/api/v1/rooms", map[string]any{"name": "cut"}), "agent_id")
	w := ana.ok(post, room+"/wait", map[string]any{"max_wait_ms": 0})
	if str(w, "status") != "your_turn" || num(w, "turn_id") != 1 {
		t.Fatalf("ana's claim: %v", w)
	}
	lease := map[string]any{"lease_id": str(w, "lease_id"), "expected_turn_id": 1}

	waited := make(chan map[string]any, 1)
	unavailable := 0
	go func() {
		for {
			a, n := bob.retried(post, room+"/wait", map[string]any{"max_wait_ms": 60000})
			unavailable += n
			m := a.json(t)
			if a.status != http.StatusOK || str(m, "status") == "your_turn" {
				waited <- m
				return
			}
		}
	}()
	bob.polls(1)
	cut := cutOff(t, u, role)
	if !strings.Contains(strings.Join(cut, " "), postgres.ListenerAppName) || !strings.Contains(" "+strings.Join(cut, " ")+" ", " "+postgres.AppName+" ") {
		t.Fatalf("hub A's connections terminated: %v; want its listening one and its pool's", cut)
	}

	hb, n := ana.retried(post, room+"/heartbeat", lease)
	if hb.status != http.StatusOK {
		t.Fatalf("the holder's heartbeat after the cut: %d %s", hb.status, hb.body)
	}
	rel, m := ana.retried(post, room+"/release", map[string]any{"lease_id": lease["lease_id"], "expected_turn_id": 1,
		"handoff": map[string]any{"status": "turn 1, across the cut", "next_action": "carry on"}})
	if rel.status != http.StatusOK {
		t.Fatalf("the holder's release after the cut: %d %s", rel.status, rel.body)
	}
	var got map[string]any
	select {
	case got = <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("bob's long poll on hub A did not answer within 30 s of the release")
	}
	if str(got, "status") != "your_turn" || num(got, "turn_id") != 2 || str(obj(got, "handoff"), "status") != "turn 1, across the cut" {
		t.Fatalf("bob's long poll on hub A after the cut: %v; want turn 2 with ana's handoff", got)
	}
	t.Logf("cut %v; then %d, %d and %d answers db_unavailable before the heartbeat, the release and the wait went through", cut, n, m, unavailable)

	if a := ana.do(post, room+"/release", map[string]any{"lease_id": lease["lease_id"], "expected_turn_id": 1,
		"handoff": map[string]any{"status": "again", "next_action": "carry on"}}); a.status != http.StatusConflict ||
		a.code(t) != string(stick.CodeStaleLease) && a.code(t) != string(stick.CodeTurnMismatch) {
		t.Fatalf("a release with the lease of turn 1, once turn 2 was granted: %d %s; want 409 stale_lease or turn_mismatch", a.status, a.body)
	}

	deadline := time.Now().Add(30 * time.Second)
	for len(admin(t, u, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND usename = $1 AND application_name = $2`,
		role, postgres.ListenerAppName)) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("hub A did not listen again within 30 s of the cut")
		}
		time.Sleep(20 * time.Millisecond)
	}
	bob.ok(post, room+"/release", map[string]any{"lease_id": str(got, "lease_id"), "expected_turn_id": 2,
		"handoff": map[string]any{"status": "turn 2", "next_action": "carry on"}})
	w3 := carol.ok(post, room+"/wait", map[string]any{"max_wait_ms": 10000})
	if str(w3, "status") != "your_turn" || num(w3, "turn_id") != 3 || str(w3, "from_agent_id") != bobID {
		t.Fatalf("carol's wait on hub B: %v; want turn 3 from %s", w3, bobID)
	}
	waited4 := make(chan answer, 1)
	go func() { waited4 <- ana.do(post, room+"/wait", map[string]any{"max_wait_ms": 60000}) }()
	ana.polls(1)
	time.Sleep(pastRefresh)
	released := time.Now()
	carol.ok(post, room+"/release", map[string]any{"lease_id": str(w3, "lease_id"), "expected_turn_id": 3,
		"handoff": map[string]any{"status": "turn 3, through hub B", "next_action": "carry on"}})
	var w4 answer
	select {
	case w4 = <-waited4:
	case <-time.After(30 * time.Second):
		t.Fatal("ana's long poll on hub A did not answer within 30 s of a release through hub B")
	}
	if m := w4.json(t); w4.status != http.StatusOK || str(m, "status") != "your_turn" || num(m, "turn_id") != 4 || str(m, "from_agent_id") != carolID {
		t.Fatalf("ana's long poll on hub A after the cut: %d %v; want turn 4 from %s", w4.status, m, carolID)
	}
	if took := time.Since(released); took > wakeBound {
		t.Fatalf("ana's long poll on hub A answered %v after a release through hub B; want within %v once hub A listens again", took, wakeBound)
	}
	if turns, _ := grants(t, svc, str(j, "room_id")); checkGrants(t, turns) != 4 {
		t.Fatalf("grants in the log: %v; want turns 1 to 4", turns)
	}
}

// Four processes contend for one room, two through hub A, one through hub
// B and one on the database directly, while every connection of hub A is
// terminated twice. The contenders see only successes and db_unavailable
// (anything else ends them with an error); the critical-section witness
// shows no two holders at once and no turn entered twice; the log grants
// every turn once; and the members on hub A get turns again after the cuts.
func TestHubCutOffDuringContention(t *testing.T) {
	u := pgtest.URL(t)
	svc, role, roleURL := startRole(t, u)
	a, b := pgHub(t, roleURL), pgHub(t, u)
	setPolicy(t, b, "contended", contendPolicy)
	span := 5 * time.Second
	c := startContention(t, u, "contended", span, a, a, b, nil)
	began := time.Now()
	var cuts [][]string
	for _, at := range []time.Duration{span / 4, span / 2} {
		time.Sleep(time.Until(began.Add(at)))
		cuts = append(cuts, cutOff(t, u, role))
	}
	markAfter := lineCount(t, c.check)
	tl := c.finish(time.Minute)
	w := c.witness()
	turns, _ := grants(t, svc, onlyRoom(t, svc))
	n := checkGrants(t, turns)
	if n != w.last || len(w.enters) != tl.grants {
		t.Fatalf("the log granted %d turns, the witness saw %d entered (the last %d), the contenders reported %d", n, len(w.enters), w.last, tl.grants)
	}
	for _, cut := range cuts {
		if len(cut) == 0 {
			t.Fatal("a cut terminated no connection of hub A")
		}
	}
	onA := 0
	for _, e := range w.enters {
		if e.line > markAfter && strings.HasPrefix(e.agent, "via-"+strings.TrimPrefix(a.url, "http://127.0.0.1:")+"-") {
			onA++
		}
	}
	if onA == 0 {
		t.Fatalf("no member on hub A entered after the last cut: %v", tl.perMember)
	}
	t.Logf("%d grants (%d by takeover), %d db_unavailable answers, %d releases whose answer was lost; cuts %v; %d turns on hub A after the last cut",
		n, tl.takeovers, tl.unavailable, tl.unsure, cuts, onA)
}
