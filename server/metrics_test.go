package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// /metrics speaks the Prometheus text format: requests by route, method
// and status, their latency, open long polls, rooms and members, joins
// and grants.
func TestMetrics(t *testing.T) {
	t.Parallel()
	h := startHub(t, "", nil)
	ana, bob := h.client("", "ana"), h.client("", "bob")
	j := ana.ok(post, "/api/v1/rooms", map[string]any{"name": "metrics"})
	bob.ok(post, "/api/v1/rooms", map[string]any{"name": "metrics"})
	ana.ok(post, "/api/v1/rooms/"+str(j, "room_id")+"/wait", map[string]any{"max_wait_ms": 0})
	ana.fails(http.StatusNotFound, "room_not_found", get, "/api/v1/rooms/room_0000000000000000", nil)
	a := ana.do(get, "/metrics", nil)
	if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %v", a.status, a.header)
	}
	for _, want := range []string{
		`stick_http_requests_total{method="POST",route="POST /api/v1/rooms",status="200"} 2`,
		`stick_http_requests_total{method="GET",route="GET /api/v1/rooms/{room_id}",status="404"} 1`,
		`stick_http_request_duration_seconds_bucket{route="POST /api/v1/rooms/{room_id}/wait",le="+Inf"} 1`,
		"stick_joins_total 2", "stick_grants_total 1", "stick_takeovers_total 0",
		"stick_long_polls_open 0", "stick_rooms_open 1", "stick_members_active 2",
	} {
		if !strings.Contains(string(a.body), want+"\n") {
			t.Errorf("no %s in:\n%s", want, a.body)
		}
	}
}
