package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/internal/rundb"
	"github.com/stickhq/stick/stick"
)

func init() {
	reexec.Register("bench-sync-wait", roleMain("bench-sync-wait", syncWaiter))
}

// wakeReceiver is the member id of message-wake's receiver process.
const wakeReceiver = "receiver"

// wakeSettle is how long message-wake's sender lets the receiver's Sync
// get into its wait before it posts: a note that lands before the wait is
// found by Sync's first look at the room, which is not a wake-up. That
// look is a write transaction that most often writes nothing (the cursor
// has not moved, the presence is fresh), so there is no commit to watch
// for; 2 ms leaves it time on either store (with Sync instrumented, every
// one of 1,000 Syncs on each store returned from its wait). Longer pauses
// leave both processes idle longer, and slower to wake.
const wakeSettle = 2 * time.Millisecond

// wakeWait is the wait of the receiver's every Sync: far longer than any
// wake-up, so that a Sync that returns without the note is a problem of
// the store's wake-ups, not of the wait.
const wakeWait = 30 * time.Second

// syncWaiter: args data repo id. The process joins, reads the room to its
// end, says "ready" and waits for "go". Then for each line "sync" of its
// input it says "waiting", calls Sync with a wait of wakeWait, and says
// "got" with the moment the call returned, in Unix nanoseconds, and the
// call's result as JSON; it exits when its input closes.
func syncWaiter(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("want data repo id, got %q", args)
	}
	ctx := context.Background()
	a, err := joinAs(ctx, rundb.Inherited(args[0]), args[1], args[2])
	if err != nil {
		return err
	}
	defer a.close()
	for {
		res, err := a.svc.Sync(ctx, a.me, a.room, stick.SyncRequest{MaxItems: stick.MaxEventLimit})
		if err != nil {
			return err
		}
		if !res.HasMore {
			break
		}
	}
	in, err := readyGo()
	if err != nil {
		return err
	}
	for in.Scan() {
		if in.Text() != "sync" {
			return fmt.Errorf("want sync on stdin, got %q", in.Text())
		}
		fmt.Println("waiting")
		res, err := a.svc.Sync(ctx, a.me, a.room, stick.SyncRequest{Wait: wakeWait})
		at := time.Now().UnixNano()
		if err != nil {
			return err
		}
		js, err := json.Marshal(res)
		if err != nil {
			return err
		}
		fmt.Printf("got %d %s\n", at, js)
	}
	return in.Err()
}

// messageWake: a member blocked in Sync in a process of its own, and a
// sender in this process, with a store of its own, that posts a note
// addressed to it while it waits (wakeSettle after it said it calls
// Sync), again and again: each timed from just before the sender calls
// Post until the receiver's Sync returns with the note among the notes
// addressed to it, on the shared wall clock as the library handoff is.
// The receiver hears of the commit through the store's wake-ups across
// processes (the bell a commit rings on SQLite, NOTIFY on PostgreSQL);
// its Sync then reads the room and writes its cursor. Each Sync must return exactly the note sent (its seq, its text,
// its sender), addressed to the receiver, in Addressed and not in
// Received, and nothing else; the first that does not is a problem and
// ends the scenario.
//
// Its target is p50 <= 2 ms. On PostgreSQL it is p50 <= 6 ms, three
// times SQLite's, as the library handoff's PostgreSQL target is three
// times its SQLite one (p50 3 ms for 1 ms, p99 15 ms for 5 ms): the path
// has the handoff's shape (a write transaction in one process, a wake-up
// across processes, a read and a write transaction in the other), and on
// PostgreSQL each transaction takes round trips to the server where
// SQLite's take none, and the wake-up is a NOTIFY through the server
// where SQLite's is a write to a file beside the database. It has no
// ratio target: no floor measures a note's or a Sync's transaction.
func messageWake(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "message-wake", Unit: "messages"}
	sender, err := joinAs(ctx, e.db, e.repo, "sender")
	if err != nil {
		return nil, err
	}
	defer sender.close()
	c, err := e.start(ctx, nil, "bench-sync-wait", e.data, e.repo, wakeReceiver)
	if err != nil {
		return nil, err
	}
	defer killAll([]*child{c})
	if _, err := c.expect(ctx, "ready", time.Minute); err != nil {
		return nil, err
	}
	if err := c.Send("go"); err != nil {
		return nil, err
	}
	n := e.size(1000, 50)
	samples := make([]time.Duration, 0, n)
	calls := make([]time.Duration, 0, n)
	early := 0
	m := startMeter(c.PID())
	for i := range n {
		if err := c.Send("sync"); err != nil {
			return nil, err
		}
		if _, err := c.expect(ctx, "waiting", time.Minute); err != nil {
			return nil, err
		}
		time.Sleep(wakeSettle)
		text := fmt.Sprintf("message %d for %s: rebase on main before the next push", i, wakeReceiver)
		t0 := time.Now()
		sent, err := sender.svc.Post(ctx, sender.me, sender.room, stick.Note{Text: text, To: []string{wakeReceiver}})
		if err != nil {
			return nil, err
		}
		posted := time.Now()
		line, err := c.expect(ctx, "got", wakeWait+time.Minute)
		if err != nil {
			return nil, err
		}
		at, got, err := parseGot(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		if msg := checkWake(got, sent.Event, text, sender.me.AgentID, wakeReceiver); msg != "" {
			r.problem("message %d: %s", i, msg)
			break
		}
		samples = append(samples, at.Sub(t0))
		calls = append(calls, posted.Sub(t0))
		if at.Before(posted) {
			early++
		}
	}
	m.stop(&r, len(samples))
	r.Throughput = 0 // paced by wakeSettle: not a rate
	if err := c.finish(10 * time.Second); err != nil {
		return nil, err
	}
	r.latencies(samples)
	r.Met = r.P50 <= 2*time.Millisecond
	if len(r.Problems) == 0 {
		r.note("%d notes, each returned once by the receiver's Sync, addressed to it, in addressed", len(samples))
	}
	r.note("timed from the sender's call of Post, %v after the receiver said it calls Sync, to that Sync's return in another process; Post took p50 %s, p99 %s; %d of %d Syncs returned before Post did",
		wakeSettle, dur(quantileOf(calls, 0.5)), dur(quantileOf(calls, 0.99)), early, len(samples))
	return []Result{r}, nil
}

// parseGot reads the receiver's line "got": the moment its Sync returned
// and the result.
func parseGot(line string) (time.Time, stick.SyncResult, error) {
	var res stick.SyncResult
	ns, js, ok := strings.Cut(line, " ")
	if !ok {
		return time.Time{}, res, fmt.Errorf("said got %.200q, want a time and a result", line)
	}
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		return time.Time{}, res, fmt.Errorf("said got with the time %q", ns)
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		return time.Time{}, res, fmt.Errorf("said got with a result that is not JSON: %v", err)
	}
	return time.Unix(0, n), res, nil
}

// checkWake says what is wrong with got, a Sync of receiver that should
// have returned the note sent (posted by from with text), and nothing
// else; "" when it is right.
func checkWake(got stick.SyncResult, sent stick.Event, text, from, receiver string) string {
	if got.Status != "ready" {
		return fmt.Sprintf("the receiver's Sync returned %s without note %d", got.Status, sent.Seq)
	}
	for _, ev := range got.Received {
		if ev.Seq == sent.Seq {
			return fmt.Sprintf("note %d came in received, not in addressed", sent.Seq)
		}
	}
	if len(got.Addressed) != 1 {
		return fmt.Sprintf("the receiver's Sync returned %d addressed notes (%s), want note %d alone",
			len(got.Addressed), seqsOf(got.Addressed), sent.Seq)
	}
	a := got.Addressed[0]
	switch {
	case a.Seq != sent.Seq:
		return fmt.Sprintf("the receiver's Sync returned event %d as addressed, want note %d", a.Seq, sent.Seq)
	case a.Type != stick.EventNote || a.Text != text:
		return fmt.Sprintf("event %d came as a %s with the text %q, want a note with %q", a.Seq, a.Type, a.Text, text)
	case a.From != from:
		return fmt.Sprintf("note %d came from %q, want %q", a.Seq, a.From, from)
	case !a.AddressedTo(receiver):
		return fmt.Sprintf("note %d came addressed to %q, want %q", a.Seq, a.Recipients, receiver)
	case len(got.Received) > 0:
		return fmt.Sprintf("the receiver's Sync also returned events %s, where nothing else was written", seqsOf(got.Received))
	}
	return ""
}

// seqsOf lists the events' seqs for a message: "[3 4]".
func seqsOf(evs []stick.Event) string {
	seqs := make([]int64, len(evs))
	for i, ev := range evs {
		seqs[i] = ev.Seq
	}
	return fmt.Sprint(seqs)
}
