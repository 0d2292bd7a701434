package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/web"
)

// An internal error of the page is logged as the API's are: on the
// request's log line, at level error, with its text, under the id the
// page quotes; the page shows neither the text nor anything but the id.
func TestPageReportsInternalErrors(t *testing.T) {
	var logged bytes.Buffer
	s := &Server{log: slog.New(slog.NewTextHandler(&logged, nil)), metrics: newMetrics(func(context.Context) (int, int, error) { return 0, 0, nil })}
	page, err := web.New(web.Config{
		ServiceFor: func(stick.Principal) *stick.Service { return nil },
		Open: func(context.Context) (bool, error) {
			return false, errors.New("open /var/lib/secret/rooms.sqlite: disk I/O error")
		},
		Report: reportPage,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.observe(page))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	line := logged.String()
	i := strings.Index(line, "id=req_")
	if i < 0 {
		t.Fatalf("no request id in the log: %s", line)
	}
	id := strings.Fields(line[i+3:])[0]
	if resp.StatusCode != http.StatusInternalServerError || strings.Contains(string(b), "/var/lib") || !strings.Contains(string(b), "(request "+id+")") {
		t.Errorf("the page: %d\n%s", resp.StatusCode, b)
	}
	if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "disk I/O error") || !strings.Contains(line, "status=500") {
		t.Errorf("the log line: %s", line)
	}
}
