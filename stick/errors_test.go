package stick_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stickhq/stick/stick"
)

func TestErrorHelpers(t *testing.T) {
	base := stick.Errorf(stick.CodeStaleLease, "lease gone").With("current_owner", "a").WithHint("re-read")
	wrapped := fmt.Errorf("release: %w", base)
	if stick.ErrorCode(wrapped) != stick.CodeStaleLease || stick.ErrorCode(nil) != "" {
		t.Fatal("ErrorCode must see through wrapping")
	}
	if !errors.Is(wrapped, &stick.Error{Code: stick.CodeStaleLease}) || errors.Is(wrapped, &stick.Error{Code: stick.CodeTurnMismatch}) {
		t.Fatal("errors.Is must match by code")
	}
	if got := base.Error(); got != "stale_lease: lease gone" {
		t.Fatalf("Error() = %q", got)
	}
	cause := errors.New("disk on fire")
	if foreign := stick.AsError(cause); foreign.Code != stick.CodeInternal || !errors.Is(foreign, cause) {
		t.Fatalf("foreign errors become internal and keep their cause: %+v", foreign)
	}
	if c := stick.AsError(fmt.Errorf("wait: %w", context.DeadlineExceeded)); c.Code != stick.CodeCanceled || !errors.Is(c, context.DeadlineExceeded) {
		t.Fatalf("context errors become canceled: %+v", c)
	}
	if stick.AsError(wrapped) != base || stick.AsError(nil) != nil {
		t.Fatal("AsError must return the coded error itself")
	}
}

func TestListAllRooms(t *testing.T) {
	e := newEnv(t)
	e.join(agent("a"))
	other := mkRepo(t)
	if _, err := e.svc.JoinPath(e.ctx, agent("b"), stick.JoinRequest{Path: other}); err != nil {
		t.Fatal(err)
	}
	all, err := e.svc.ListRooms(e.ctx, "")
	if err != nil || len(all) != 2 {
		t.Fatalf("ListRooms(\"\") must return every room: %+v %v", all, err)
	}
	mine, _ := e.svc.ListRooms(e.ctx, e.repo)
	if len(mine) != 1 || mine[0].CanonicalPath != e.repo || mine[0].Members != 1 || mine[0].ActiveMembers != 1 {
		t.Fatalf("a path lists only its workspace: %+v", mine)
	}
}

// A database server out of reach has a code of its own, kept by AsError.
func TestDBUnavailableCode(t *testing.T) {
	err := fmt.Errorf("update: %w", stick.Errorf(stick.CodeDBUnavailable, "lost the connection"))
	if stick.ErrorCode(err) != "db_unavailable" {
		t.Fatalf("code %q; want db_unavailable", stick.ErrorCode(err))
	}
}
