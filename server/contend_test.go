package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// member is how a contender acts in the room: over a hub's JSON API, or
// through package stick on the PostgreSQL database itself. Its errors are
// *stick.Error with the protocol's code; anything else (a transport error,
// an answer without a code, a 503 without Retry-After) is a plain error,
// which the contender reports as a failure.
type member interface {
	join(ctx context.Context, room string) (roomID, agentID string, err error)
	wait(ctx context.Context, maxWait time.Duration) (stick.WaitResult, error)
	takeover(ctx context.Context, turn int64) (stick.TakeoverResult, error)
	release(ctx context.Context, l stick.Lease, h stick.Handoff) error
	leave(ctx context.Context) error
	close()
}

// httpMember is a member over a hub's JSON API, named by its client.
type httpMember struct {
	url, client, room string
	http              *http.Client
}

// call sends body as JSON to path and decodes a 200's answer into out.
func (m *httpMember) call(ctx context.Context, method, path string, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, m.url+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Stick-Client", m.client)
	resp, err := m.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: %w: %s", method, path, err, b)
		}
		return nil
	}
	var e struct {
		Error struct {
			Code    stick.Code `json:"code"`
			Message string     `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) != nil || e.Error.Code == "" {
		return fmt.Errorf("%s %s: %d without an error code: %s", method, path, resp.StatusCode, b)
	}
	if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
		return fmt.Errorf("%s %s: 503 %s without Retry-After", method, path, e.Error.Code)
	}
	return stick.Errorf(e.Error.Code, "%s %s: %d %s", method, path, resp.StatusCode, e.Error.Message)
}

func (m *httpMember) join(ctx context.Context, room string) (string, string, error) {
	var out struct {
		RoomID  string `json:"room_id"`
		AgentID string `json:"agent_id"`
	}
	err := m.call(ctx, http.MethodPost, "/api/v1/rooms", map[string]any{"name": room}, &out)
	m.room = out.RoomID
	return out.RoomID, out.AgentID, err
}

func (m *httpMember) path(op string) string { return "/api/v1/rooms/" + m.room + "/" + op }

func (m *httpMember) wait(ctx context.Context, maxWait time.Duration) (stick.WaitResult, error) {
	var out stick.WaitResult
	err := m.call(ctx, http.MethodPost, m.path("wait"), map[string]any{"max_wait_ms": maxWait.Milliseconds()}, &out)
	return out, err
}

func (m *httpMember) takeover(ctx context.Context, turn int64) (stick.TakeoverResult, error) {
	var out stick.TakeoverResult
	err := m.call(ctx, http.MethodPost, m.path("takeover"), map[string]any{"expected_turn_id": turn, "reason": "contend"}, &out)
	return out, err
}

func (m *httpMember) release(ctx context.Context, l stick.Lease, h stick.Handoff) error {
	var out stick.ReleaseResult
	return m.call(ctx, http.MethodPost, m.path("release"),
		map[string]any{"lease_id": l.LeaseID, "expected_turn_id": l.TurnID, "handoff": h}, &out)
}

func (m *httpMember) leave(ctx context.Context) error {
	var out map[string]any
	return m.call(ctx, http.MethodPost, m.path("leave"), map[string]any{}, &out)
}

func (m *httpMember) close() { m.http.CloseIdleConnections() }

// libMember is a member through package stick over a PostgreSQL store of
// its own: a direct client beside the hubs.
type libMember struct {
	st   *postgres.Store
	svc  *stick.Service
	me   stick.Caller
	room string
}

func openLibMember(ctx context.Context, dbURL, name string) (*libMember, error) {
	st, err := postgres.Open(ctx, dbURL, postgres.Options{})
	if err != nil {
		return nil, err
	}
	svc, err := stick.New(st)
	if err != nil {
		st.Close()
		return nil, err
	}
	self, err := procid.Self()
	if err != nil {
		st.Close()
		return nil, err
	}
	return &libMember{st: st, svc: svc, me: stick.Caller{AgentID: name, Kind: stick.KindProcess, Process: self}}, nil
}

func (m *libMember) join(ctx context.Context, room string) (string, string, error) {
	j, err := m.svc.JoinPath(ctx, m.me, stick.JoinRequest{Name: room})
	m.room = j.RoomID
	return j.RoomID, j.AgentID, err
}

func (m *libMember) wait(ctx context.Context, maxWait time.Duration) (stick.WaitResult, error) {
	return m.svc.WaitForTurn(ctx, m.me, stick.WaitRequest{RoomID: m.room, MaxWait: &maxWait})
}

func (m *libMember) takeover(ctx context.Context, turn int64) (stick.TakeoverResult, error) {
	return m.svc.Takeover(ctx, m.me, m.room, turn, "contend")
}

func (m *libMember) release(ctx context.Context, l stick.Lease, h stick.Handoff) error {
	_, err := m.svc.Release(ctx, m.me, l, h)
	return err
}

func (m *libMember) leave(ctx context.Context) error { return m.svc.Leave(ctx, m.me, m.room) }

func (m *libMember) close() { m.st.Close() }

// Bounds of a contender.
const (
	// contendWait is the max_wait_ms of each wait.
	contendWait = 2 * time.Second
	// unavailableFor bounds how long one call may keep failing with
	// db_unavailable before the contender gives up: a hub cut off from
	// its database must be back well within it.
	unavailableFor = 15 * time.Second
	// workLines is how many work lines a turn writes, workPause the pause
	// after each.
	workLines = 3
	workPause = 2 * time.Millisecond
)

// contender is one contend process's state.
type contender struct {
	m     member
	agent string
	pid   int
	check *os.File
	// What it saw: grants (takeovers among them), calls answered
	// db_unavailable, and releases whose answer a cut lost (retried and
	// found stale).
	grants, takeovers, unavailable, unsure int
}

// contend is a member that contends for one named room from a process of
// its own. Arguments: hub URL | db URL, the hub's URL or the database's,
// the member's name (the client name over a hub, the agent id on the
// database), the room's name, how long to contend in milliseconds, and the
// check file. It joins and prints "joined <agent id>", waits for "go" on
// its standard input, then until the time is up claims the stick (taking
// over when offered), writes its critical section into the check file in
// the chaos soak's lines (enter, work, exit: one O_APPEND write each),
// and releases with a handoff whose status is the token "<agent>.t<turn>",
// which the next holder's enter line repeats. A call answered
// db_unavailable is retried; any other unexpected answer ends the process
// with "error ...". At the end it leaves the room and prints
// "done <grants> <takeovers> <unavailable> <unsure>".
func contend(args []string) int {
	if len(args) != 6 {
		fmt.Println("error usage: contend hub|db URL NAME ROOM MS CHECKFILE")
		return 2
	}
	mode, target, name, room, file := args[0], args[1], args[2], args[3], args[5]
	ms, err := strconv.Atoi(args[4])
	if err != nil {
		fmt.Println("error duration", err)
		return 2
	}
	ctx := context.Background()
	var m member
	switch mode {
	case "hub":
		m = &httpMember{url: target, client: name, http: &http.Client{Timeout: contendWait + 10*time.Second}}
	case "db":
		if m, err = openLibMember(ctx, target, name); err != nil {
			fmt.Println("error open", err)
			return 1
		}
	default:
		fmt.Println("error mode", mode)
		return 2
	}
	defer m.close()
	check, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		fmt.Println("error check file", err)
		return 1
	}
	defer check.Close()
	c := &contender{m: m, pid: os.Getpid(), check: check}
	if err := c.retry("join", func() (err error) { _, c.agent, err = m.join(ctx, room); return err }); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("joined", c.agent)
	if line, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil || line != "go\n" {
		fmt.Println("error stdin", line, err)
		return 1
	}
	if err := c.run(ctx, time.Now().Add(time.Duration(ms)*time.Millisecond)); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("done", c.grants, c.takeovers, c.unavailable, c.unsure)
	return 0
}

// retry calls fn until it does not fail with db_unavailable, for up to
// unavailableFor.
func (c *contender) retry(op string, fn func() error) error {
	deadline := time.Now().Add(unavailableFor)
	for {
		err := fn()
		if stick.ErrorCode(err) != stick.CodeDBUnavailable {
			if err != nil {
				return fmt.Errorf("%s: %w", op, err)
			}
			return nil
		}
		c.unavailable++
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: still db_unavailable after %v: %w", op, unavailableFor, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// run contends until end, then leaves.
func (c *contender) run(ctx context.Context, end time.Time) error {
	for time.Now().Before(end) {
		var w stick.WaitResult
		if err := c.retry("wait", func() (err error) { w, err = c.m.wait(ctx, contendWait); return err }); err != nil {
			return err
		}
		switch w.Status {
		case stick.YourTurn:
			token := "-"
			if w.Handoff != nil {
				token = w.Handoff.Status
			}
			if err := c.turn(ctx, w.Lease(), "claim", token); err != nil {
				return err
			}
		case stick.TakeoverAvailable:
			var t stick.TakeoverResult
			err := c.retry("takeover", func() (err error) { t, err = c.m.takeover(ctx, w.TurnID); return err })
			switch stick.ErrorCode(err) {
			case "":
				c.takeovers++
				if err := c.turn(ctx, t.Lease(), "takeover", "-"); err != nil {
					return err
				}
			case stick.CodeTurnMismatch, stick.CodeTakeoverNotAvailable:
			default:
				return err
			}
		}
	}
	return c.retry("leave", func() error { return c.m.leave(ctx) })
}

// turn holds the stick of lease l: enter, work, exit, release.
func (c *contender) turn(ctx context.Context, l stick.Lease, how, token string) error {
	c.grants++
	if err := c.write(fmt.Sprintf("enter %d %s %d %s %s\n", l.TurnID, c.agent, c.pid, how, token)); err != nil {
		return err
	}
	for n := 1; n <= workLines; n++ {
		if err := c.write(fmt.Sprintf("work %d %s %d %d\n", l.TurnID, c.agent, c.pid, n)); err != nil {
			return err
		}
		time.Sleep(workPause)
	}
	if err := c.write(fmt.Sprintf("exit %d %s %d done\n", l.TurnID, c.agent, c.pid)); err != nil {
		return err
	}
	h := stick.Handoff{Status: handoffToken(c.agent, l.TurnID), NextAction: "enter, work, exit, release"}
	cut := false
	err := c.retry("release", func() error {
		err := c.m.release(ctx, l, h)
		cut = cut || stick.ErrorCode(err) == stick.CodeDBUnavailable
		return err
	})
	if code := stick.ErrorCode(err); cut && (code == stick.CodeStaleLease || code == stick.CodeTurnMismatch) {
		// The release was answered db_unavailable, and its retry finds the
		// turn over: the first one committed and its answer was lost.
		c.unsure++
		return nil
	}
	return err
}

// write appends one line to the check file in one write.
func (c *contender) write(line string) error {
	if _, err := c.check.WriteString(line); err != nil {
		return fmt.Errorf("write the check file: %w", err)
	}
	return nil
}

// handoffToken is the status of the handoff that ends turn of agent: the
// token the next holder's enter line must repeat.
func handoffToken(agent string, turn int64) string {
	return agent + ".t" + strconv.FormatInt(turn, 10)
}
