package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/stickhq/stick/internal/testproc"
)

// hub is a running 'stick serve' process.
type hub struct {
	t *testing.T
	// url is where the tests reach the hub, public the URL it says it has.
	url, public string
	data        string
	proc        *testproc.Proc
	// env is the hub's environment, for the commands run beside it.
	env []string
	// check validates answers against the hub's OpenAPI document.
	check validator.Validator
	// http is the client the tests call the hub with.
	http *http.Client
}

// startHub starts 'stick serve' on a free loopback port with a database of
// its own (data, a new one when ""), the environment env and the extra
// arguments args, and waits for it to answer.
func startHub(t *testing.T, data string, env []string, args ...string) *hub {
	t.Helper()
	if data == "" {
		data = t.TempDir()
	}
	env = append([]string{"TALKING_STICK_DATA_DIR=" + data}, env...)
	if !hasAddr(args) {
		args = append(args, "--addr", "127.0.0.1:0")
	}
	p := testproc.StartEnv(t, env, "stick", append([]string{"serve"}, args...)...)
	line, err := p.ReadLine(30 * time.Second)
	if err != nil {
		t.Fatalf("stick serve did not start: %v\n%s", err, p.Stderr())
	}
	var listen, public string
	if _, err := fmt.Sscanf(line, "stick serve: listening on %s (public URL %s", &listen, &public); err != nil {
		t.Fatalf("stick serve printed %q first", line)
	}
	public = strings.TrimSuffix(public, ")")
	for _, any := range []string{"0.0.0.0", "[::]"} {
		listen = strings.Replace(listen, any, "127.0.0.1", 1)
	}
	h := &hub{t: t, url: listen, public: public, data: data, proc: p, env: env, http: http.DefaultClient}
	if strings.HasPrefix(h.url, "http:") {
		h.loadOpenAPI() // an HTTPS hub's test gives its client first
	}
	return h
}

func hasAddr(args []string) bool {
	for _, a := range args {
		if a == "--addr" || strings.HasPrefix(a, "--addr=") {
			return true
		}
	}
	return false
}

// loadOpenAPI reads the hub's OpenAPI document, the one it serves, and
// makes the validator every answer of the tests is checked by.
func (h *hub) loadOpenAPI() {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.url+"/api/v1/openapi.json", nil)
	resp, err := h.http.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		// A hub with tokens wants one for its document too: the tests
		// read it with the first client that has one (see client).
		return
	}
	h.useOpenAPI(raw)
}

func (h *hub) useOpenAPI(raw []byte) {
	h.t.Helper()
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		h.t.Fatalf("openapi.json: %v", err)
	}
	v, errs := validator.NewValidator(doc, config.WithoutSecurityValidation())
	if len(errs) > 0 {
		h.t.Fatalf("openapi.json: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			h.t.Errorf("openapi.json is not a valid OpenAPI document: %s: %s", e.Message, e.Reason)
		}
	}
	h.check = v
}

// stop sends SIGTERM and waits for the hub to exit, returning its exit code.
func (h *hub) stop() int {
	h.t.Helper()
	if err := syscall.Kill(h.proc.PID(), syscall.SIGTERM); err != nil {
		h.t.Fatal(err)
	}
	code, err := h.proc.Wait()
	if err != nil {
		h.t.Fatal(err)
	}
	return code
}

// client calls a hub as one member: a token (none when "") and a client
// name (the X-Stick-Client header, none when "").
type client struct {
	h      *hub
	token  string
	name   string
	header http.Header
}

func (h *hub) client(token, name string) *client {
	c := &client{h: h, token: token, name: name, header: http.Header{}}
	if h.check == nil && token != "" {
		if st, raw := c.raw(http.MethodGet, "/api/v1/openapi.json", nil); st == http.StatusOK {
			h.useOpenAPI(raw)
		}
	}
	return c
}

// answer is one answer of the hub.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the answer's body.
func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("answer %d is not a JSON object: %v\n%s", a.status, err, a.body)
	}
	return m
}

// code is the error code of an error answer.
func (a answer) code(t *testing.T) string {
	t.Helper()
	e, _ := a.json(t)["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// mockMu serialises the validator, which is not safe for concurrent use.
var mockMu sync.Mutex

// do sends a request (body: nil, a string sent as it is, or a value sent
// as JSON) and returns the answer, checked against the OpenAPI document:
// every answer's body, and the request of every answer that succeeded.
func (c *client) do(method, path string, body any, headers ...string) answer {
	c.h.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			c.h.t.Fatal(err)
		}
	}
	req := c.request(method, path, raw, headers)
	resp, err := c.h.http.Do(req)
	if err != nil {
		c.h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		c.h.t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: got}
	c.validate(method, path, raw, headers, a)
	return a
}

// raw sends a request without checking it.
func (c *client) raw(method, path string, body []byte) (int, []byte) {
	resp, err := c.h.http.Do(c.request(method, path, body, nil))
	if err != nil {
		c.h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (c *client) request(method, path string, body []byte, headers []string) *http.Request {
	req, err := http.NewRequest(method, c.h.url+path, bytes.NewReader(body))
	if err != nil {
		c.h.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.name != "" {
		req.Header.Set("X-Stick-Client", c.name)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// validate checks an answer against the hub's OpenAPI document: its status
// is one the operation lists, its body the schema of that status; and the
// request of a success is one the document describes.
func (c *client) validate(method, path string, body []byte, headers []string, a answer) {
	c.h.t.Helper()
	if c.h.check == nil || a.status == http.StatusNotFound && bytes.Contains(a.body, []byte(`"not_found"`)) || a.status == http.StatusMethodNotAllowed {
		return // a path or method the document rightly does not have
	}
	req := c.request(method, path, body, headers)
	resp := &http.Response{StatusCode: a.status, Header: a.header, Body: io.NopCloser(bytes.NewReader(a.body)), Request: req}
	mockMu.Lock()
	defer mockMu.Unlock()
	if ok, errs := c.h.check.ValidateHttpResponse(req, resp); !ok {
		for _, e := range errs {
			c.h.t.Errorf("%s %s answered %d not as openapi.json says: %s: %s\n%s", method, path, a.status, e.Message, e.Reason, a.body)
		}
	}
	if a.status/100 == 2 {
		if ok, errs := c.h.check.ValidateHttpRequestSync(c.request(method, path, body, headers)); !ok {
			for _, e := range errs {
				c.h.t.Errorf("%s %s was sent not as openapi.json says: %s: %s", method, path, e.Message, e.Reason)
			}
		}
	}
}

// ok sends a request that must succeed and returns its JSON answer.
func (c *client) ok(method, path string, body any, headers ...string) map[string]any {
	c.h.t.Helper()
	a := c.do(method, path, body, headers...)
	if a.status != http.StatusOK {
		c.h.t.Fatalf("%s %s: %d %s", method, path, a.status, a.body)
	}
	if strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		return a.json(c.h.t)
	}
	return map[string]any{"text": string(a.body)}
}

// fails sends a request that must fail with status and code, and returns
// the error's fields.
func (c *client) fails(status int, code, method, path string, body any, headers ...string) map[string]any {
	c.h.t.Helper()
	a := c.do(method, path, body, headers...)
	if a.status != status || a.code(c.h.t) != code {
		c.h.t.Fatalf("%s %s: got %d %s, want %d %s", method, path, a.status, a.body, status, code)
	}
	e, _ := a.json(c.h.t)["error"].(map[string]any)
	return e
}
