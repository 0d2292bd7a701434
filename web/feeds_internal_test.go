package web

import (
	"context"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// A feed whose read fails for good leaves the map at once: a page that
// joins while an earlier page still holds the dead feed gets a fresh
// one, not the error.
func TestFailedFeedLeavesTheMap(t *testing.T) {
	var fs feeds
	fail := func(context.Context) (any, <-chan struct{}, error) {
		return nil, nil, stick.Errorf(stick.CodeInternal, "the read failed")
	}
	dead, leave := fs.subscribe("k", fail)
	defer leave()
	deadline := time.After(10 * time.Second)
	for {
		_, wake, err := dead.latest()
		if err != nil {
			break
		}
		select {
		case <-wake:
		case <-deadline:
			t.Fatal("the failed read was never published")
		}
	}
	for {
		fs.mu.Lock()
		_, still := fs.m["k"]
		fs.mu.Unlock()
		if !still {
			break
		}
		select {
		case <-deadline:
			t.Fatal("the dead feed stayed in the map")
		case <-time.After(time.Millisecond):
		}
	}
	fresh, leaveFresh := fs.subscribe("k", func(ctx context.Context) (any, <-chan struct{}, error) {
		return "fresh", ctx.Done(), nil
	})
	defer leaveFresh()
	for {
		val, wake, err := fresh.latest()
		if err != nil {
			t.Fatalf("a page that joined after the failure got it: %v", err)
		}
		if val == "fresh" {
			break
		}
		select {
		case <-wake:
		case <-deadline:
			t.Fatal("the fresh feed never read")
		}
	}
	// The earlier page leaving does not end the fresh feed.
	leave()
	if _, _, err := fresh.latest(); err != nil {
		t.Fatalf("the dead feed's last page ended the fresh one: %v", err)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m["k"] != fresh {
		t.Fatal("the dead feed's last page dropped the fresh one from the map")
	}
}
