package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/stickhq/stick/internal/reexec"
)

func init() {
	reexec.Register("bench-http-echo", roleMain("bench-http-echo", httpEcho))
}

// httpEcho serves POST / on a free loopback port with net/http, answering
// each request with its body as JSON, until its input ends. It prints
// "listening ADDR" first.
func httpEcho([]string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Println("listening", ln.Addr())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
	}
	_ = srv.Close()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// httpLoopback times a short JSON request to an HTTP server in a child
// process and the reading of its answer, over one keep-alive connection
// on the loopback interface, with net/http at both ends: the floor of a
// request to the hub.
func httpLoopback(ctx context.Context, e *env) ([]FloorResult, error) {
	c, err := e.start(ctx, nil, "bench-http-echo")
	if err != nil {
		return nil, err
	}
	defer func() { _ = c.finish(10 * time.Second) }()
	addr, err := c.expect(ctx, "listening ", time.Minute)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: newTransport(1)}
	defer client.CloseIdleConnections()
	url := "http://" + addr + "/"
	msg := []byte(`{"lease_id":"lease_0123456789abcdef","expected_turn_id":12345,"handoff":{"status":"turn 12345 is yours","next_action":"go on"}}`)
	trip := func() (time.Duration, error) {
		t0 := time.Now()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(msg))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, fmt.Errorf("read the answer: %w", err)
		}
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, msg) {
			return 0, fmt.Errorf("the echo answered %s: %s", resp.Status, strings.TrimSpace(string(body)))
		}
		return time.Since(t0), nil
	}
	return timeTrips(FloorResult{Floor: "http-loopback", Unit: "round trips"}, 100, e.fixed(5000, 500), c.PID(), trip)
}
