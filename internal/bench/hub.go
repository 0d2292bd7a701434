package bench

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
	"strings"
	"syscall"
	"time"

	"github.com/stickhq/stick/stick"

	"github.com/stickhq/stick/internal/rundb"
)

// The hub's scenarios run a real 'stick serve' in a child process on a
// loopback port of its own, over the scenario's database, with tokens,
// and talk to it as plain HTTP clients of its JSON API. The scenarios
// through 'stick mcp --server' (a proxy in front of the hub) start the hub
// the same way.

// tokenEnv carries a client role's token: never an argument, which any
// user of the host could read in the process list.
const tokenEnv = "STICKBENCH_TOKEN"

// listeningPrefix starts the first line 'stick serve' prints.
const listeningPrefix = "stick serve: listening on "

// hub is a 'stick serve' child.
type hub struct {
	*child
	// url is where it listens: http://127.0.0.1:PORT.
	url string
	// started is the moment before it was spawned, listening the moment
	// its first line was read.
	started, listening time.Time
}

// startHub starts 'stick serve' on a free loopback port over the
// scenario's database and returns once it listens. The database should
// hold a token already: a hub without one answers without any.
func (e *env) startHub(ctx context.Context) (*hub, error) {
	cmd, err := e.stickCommand(ctx, "serve", "--addr", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	// Plain HTTP, named by its address, whatever this shell sets.
	cmd.Env = append(cmd.Env, "STICK_TLS_CERT=", "STICK_TLS_KEY=", "STICK_PUBLIC_URL=")
	t0 := time.Now()
	c, err := startCmd(cmd, "stick serve")
	if err != nil {
		return nil, err
	}
	line, err := c.expect(ctx, listeningPrefix, time.Minute)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	h := &hub{child: c, started: t0, listening: time.Now()}
	h.url, _, _ = strings.Cut(line, " ")
	if !strings.HasPrefix(h.url, "http://127.0.0.1:") {
		_ = c.Close()
		return nil, fmt.Errorf("stick serve said it listens on %q", line)
	}
	return h, nil
}

// startHubWithTokens makes an agent token of each name, then starts a
// hub; it returns the hub and the tokens' secrets, in order.
func (e *env) startHubWithTokens(ctx context.Context, names ...string) (*hub, []string, error) {
	secrets, err := makeTokens(ctx, e.db, names...)
	if err != nil {
		return nil, nil, err
	}
	h, err := e.startHub(ctx)
	return h, secrets, err
}

// stop stops the hub as Ctrl-C would, so that it ends its long polls and
// writes its profiles (STICKBENCH_PROFILE), and waits for it to exit.
func (h *hub) stop() error {
	if err := h.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-h.Done():
		if st := h.State(); !st.Success() {
			return fmt.Errorf("%s: %v%s", h, st, h.stderrNote())
		}
		return nil
	case <-time.After(20 * time.Second):
		_ = h.Close()
		return fmt.Errorf("%s did not stop within 20 s of SIGTERM", h)
	}
}

// makeTokens makes an agent token of each name in the store of db and
// returns their secrets, in order.
func makeTokens(ctx context.Context, db rundb.DB, names ...string) ([]string, error) {
	st, svc, err := openService(ctx, db)
	if err != nil {
		return nil, err
	}
	defer closeService(st, svc)
	var secrets []string
	for _, n := range names {
		_, secret, err := svc.CreateToken(ctx, stick.TokenRequest{Name: n, Role: stick.AccessAgent})
		if err != nil {
			return nil, err
		}
		secrets = append(secrets, secret)
	}
	return secrets, nil
}

// restClient is one member of a hub as a plain HTTP client of its JSON
// API: a token, the client name it gives (X-Stick-Client), which with the
// token names the member, and connections kept alive between requests.
type restClient struct {
	api, token, name string
	hc               *http.Client
}

// newTransport keeps up to conns idle connections alive between requests:
// as many as the requests that may be in flight at once, so that once warm
// no request opens a connection of its own.
func newTransport(conns int) *http.Transport {
	return &http.Transport{MaxIdleConnsPerHost: conns, DisableCompression: true}
}

// newRESTClient is client name with token on the hub at url, over tr.
func newRESTClient(url, token, name string, tr *http.Transport) *restClient {
	return &restClient{api: url + "/api/v1", token: token, name: name, hc: &http.Client{Transport: tr}}
}

// restClientFromEnv is a client role's client: the token from tokenEnv.
func restClientFromEnv(url, name string) (*restClient, error) {
	token := os.Getenv(tokenEnv)
	if token == "" {
		return nil, fmt.Errorf("no token in $%s", tokenEnv)
	}
	return newRESTClient(url, token, name, newTransport(1)), nil
}

// call sends in as the JSON body (nil for none) and decodes a 200
// answer into out (nil to drop it); any other answer is an error with the
// hub's code and message.
func (c *restClient) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.api+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("X-Stick-Client", c.name)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && e.Error.Code != "" {
			return fmt.Errorf("%s %s: %s %s: %s", method, path, resp.Status, e.Error.Code, e.Error.Message)
		}
		return fmt.Errorf("%s %s: %s: %.200s", method, path, resp.Status, b)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// join joins (or creates) the room of that name and returns its id.
func (c *restClient) join(ctx context.Context, name string) (string, error) {
	var j stick.JoinResult
	if err := c.call(ctx, http.MethodPost, "/rooms", map[string]any{"name": name}, &j); err != nil {
		return "", err
	}
	return j.RoomID, nil
}

// wait long-polls for the turn for up to d, or the room's default wait
// when d is negative.
func (c *restClient) wait(ctx context.Context, room string, d time.Duration) (stick.WaitResult, error) {
	in := map[string]any{}
	if d >= 0 {
		in["max_wait_ms"] = d.Milliseconds()
	}
	var w stick.WaitResult
	err := c.call(ctx, http.MethodPost, "/rooms/"+room+"/wait", in, &w)
	return w, err
}

// release ends the turn of l with h.
func (c *restClient) release(ctx context.Context, l stick.Lease, h stick.Handoff) error {
	return c.call(ctx, http.MethodPost, "/rooms/"+l.RoomID+"/release",
		map[string]any{"lease_id": l.LeaseID, "expected_turn_id": l.TurnID, "handoff": h}, nil)
}

// note posts a note to the room.
func (c *restClient) note(ctx context.Context, room, text string) error {
	return c.call(ctx, http.MethodPost, "/rooms/"+room+"/notes", map[string]any{"text": text}, nil)
}

// metric reads one gauge or counter without labels from the hub's
// /metrics; -1 when it is not there.
func (c *restClient) metric(ctx context.Context, url, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		if v, ok := strings.CutPrefix(lines.Text(), name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return -1, lines.Err()
}
