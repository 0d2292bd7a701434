package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/internal/rundb"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// agent is one process's use of the library: the shared database, this
// process as the member's liveness, the room of the workspace joined.
type agent struct {
	db   rundb.DB
	st   stick.Store
	svc  *stick.Service
	me   stick.Caller
	room string
}

// joinAs opens the store of db and joins the room of repo as id.
func joinAs(ctx context.Context, db rundb.DB, repo, id string) (*agent, error) {
	self, err := procid.Self()
	if err != nil {
		return nil, err
	}
	st, svc, err := openService(ctx, db)
	if err != nil {
		return nil, err
	}
	a := &agent{db: db, st: st, svc: svc, me: stick.Caller{AgentID: id, Kind: stick.KindProcess, Process: self}}
	j, err := svc.JoinPath(ctx, a.me, stick.JoinRequest{Path: repo})
	if err != nil {
		a.close()
		return nil, err
	}
	a.room = j.RoomID
	return a, nil
}

// openService opens the store of db, making it when there is none, and a
// Service over it; shut both down with closeService.
func openService(ctx context.Context, db rundb.DB) (stick.Store, *stick.Service, error) {
	st, err := db.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	svc, err := stick.New(st)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, svc, nil
}

func closeService(st stick.Store, svc *stick.Service) {
	svc.Shutdown()
	st.Close()
}

// joinReady is the start of a role that takes part in a measured run: it
// joins, says "ready", and returns once the parent says "go", with the
// rest of its input.
func joinReady(ctx context.Context, db rundb.DB, repo, id string) (*agent, *bufio.Scanner, error) {
	a, err := joinAs(ctx, db, repo, id)
	if err != nil {
		return nil, nil, err
	}
	in, err := readyGo()
	if err != nil {
		a.close()
		return nil, nil, err
	}
	return a, in, nil
}

// readyGo says "ready" and returns once the parent says "go", with the
// rest of the input.
func readyGo() (*bufio.Scanner, error) {
	in := bufio.NewScanner(os.Stdin)
	fmt.Println("ready")
	if !in.Scan() || in.Text() != "go" {
		return nil, fmt.Errorf("want go on stdin")
	}
	return in, nil
}

func (a *agent) close() { closeService(a.st, a.svc) }

// wait blocks in WaitForTurn for up to d.
func (a *agent) wait(ctx context.Context, d time.Duration) (stick.WaitResult, error) {
	return a.svc.WaitForTurn(ctx, a.me, stick.WaitRequest{RoomID: a.room, MaxWait: &d})
}

// stampPrefix starts the status of a handoff that carries the moment its
// release began, in Unix nanoseconds, so the receiving process can time
// the handoff with the shared wall clock.
const stampPrefix = "sent-at "

// stamped is a handoff carrying the current time.
func stamped(next string) stick.Handoff {
	return stick.Handoff{Status: stampPrefix + strconv.FormatInt(time.Now().UnixNano(), 10), NextAction: next}
}

// since returns how long ago a stamped handoff was sent, and false for a
// handoff without a stamp (the first turn, a takeover).
func since(h *stick.Handoff) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	v, ok := strings.CutPrefix(h.Status, stampPrefix)
	if !ok {
		return 0, false
	}
	ns, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(time.Now().UnixNano() - ns), true
}

// formatDurations writes samples as space-separated nanoseconds, the
// form children report them in.
func formatDurations(ds []time.Duration) string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(int64(d), 10))
	}
	return b.String()
}

func parseDurations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Fields(s) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad sample %q", f)
		}
		out = append(out, time.Duration(n))
	}
	return out, nil
}

// settle brings a's store to a steady state after a fill in bulk, so
// that timings see one: SQLite's search index, which bulk transactions
// leave to catch up in the background, complete; PostgreSQL's tables
// vacuumed and analysed (see rundb.DB.Settle).
func (a *agent) settle(ctx context.Context) error {
	if ix, ok := a.st.(interface{ Index(context.Context) error }); ok {
		if err := ix.Index(ctx); err != nil {
			return err
		}
	}
	return a.db.Settle(ctx)
}
