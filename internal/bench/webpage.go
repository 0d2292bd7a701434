package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// The page's scenarios read the hub's web page as a browser does: a
// viewer's token in the page's session cookie, the room's page over one
// keep-alive connection, its live stream (Server-Sent Events) over a
// connection of its own.

// sessionCookie is the cookie the page keeps the token signed in with.
const sessionCookie = "stick_session"

// viewerToken makes a viewer's token, the role of a person who watches
// the page, through svc, and returns its secret.
func viewerToken(ctx context.Context, svc *stick.Service) (string, error) {
	_, secret, err := svc.CreateToken(ctx, stick.TokenRequest{Name: "page", Role: stick.AccessViewer})
	return secret, err
}

// watchedRoom is what web-live and web-idle watch: id's member of a busy
// room of 1,000 events (busyRoom), a viewer's token, the room's newest
// event, and a hub started on the store. The caller closes the member
// and the hub.
func (e *env) watchedRoom(ctx context.Context, id string) (a *agent, secret string, last int64, h *hub, err error) {
	if a, err = joinAs(ctx, e.db, e.repo, id); err != nil {
		return nil, "", 0, nil, err
	}
	fail := func(err error) (*agent, string, int64, *hub, error) {
		a.close()
		return nil, "", 0, nil, err
	}
	if _, err := busyRoom(ctx, a, e.repo, 1_000); err != nil {
		return fail(err)
	}
	if secret, err = viewerToken(ctx, a.svc); err != nil {
		return fail(err)
	}
	st, err := a.svc.RoomState(ctx, a.room)
	if err != nil {
		return fail(err)
	}
	if h, err = e.startHub(ctx); err != nil {
		return fail(err)
	}
	return a, secret, st.LastEventSeq, h, nil
}

// pageReader reads the hub's page at url signed in with a token.
type pageReader struct {
	url, token string
	hc         *http.Client
}

func newPageReader(url, token string, tr *http.Transport) *pageReader {
	return &pageReader{url: url, token: token, hc: &http.Client{Transport: tr}}
}

// request is a GET of path, signed in.
func (p *pageReader) request(ctx context.Context, path string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+path, nil)
	if err != nil {
		return nil, err
	}
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: p.token})
	return req, nil
}

// busyRoom fills the room of a's workspace with n events as a busy room's
// log looks (turns handed on with handoffs in full, claims, notes,
// questions and their answers, from 8 members), and gives it a document
// of 100 versions, in large transactions through the store; then it has
// the search index catch up, so a hub started next finds nothing to do.
// It returns the members' ids.
func busyRoom(ctx context.Context, a *agent, repo string, n int) ([]string, error) {
	self, err := procid.Self()
	if err != nil {
		return nil, err
	}
	members := []string{a.me.AgentID}
	for i := 1; i < 8; i++ {
		c := stick.Caller{AgentID: fmt.Sprintf("agent-%d", i), Kind: stick.KindProcess, Process: self}
		if _, err := a.svc.JoinPath(ctx, c, stick.JoinRequest{Path: repo}); err != nil {
			return nil, err
		}
		members = append(members, c.AgentID)
	}
	rnd := rand.New(rand.NewPCG(11, 12))
	const batch = 25_000
	now := time.Now()
	var turn, release, question int64
	for done := 0; done < n; done += batch {
		err := a.st.Update(ctx, func(tx stick.Tx) error {
			for i := done; i < min(done+batch, n); i++ {
				from := members[turn%int64(len(members))]
				ev := stick.Event{RoomID: a.room, TurnID: turn, From: from, CreatedAt: now}
				switch i % 20 {
				case 0:
					ev.Type, ev.To = stick.EventRelease, members[(turn+1)%int64(len(members))]
					ev.Handoff = busyHandoff(i)
				case 1:
					turn++
					ev.Type, ev.From, ev.TurnID, ev.Ref, ev.Reason = stick.EventClaim, members[turn%int64(len(members))], turn, release, "sequence"
				case 7:
					ev.Type, ev.MessageType = stick.EventNote, stick.NoteQuestion
					ev.Text = fmt.Sprintf("question %d: should the retry in fetch.go:%d back off, or give up after three tries?", i, i%300)
				case 8:
					ev.Type, ev.MessageType, ev.Ref = stick.EventNote, stick.NoteAnswer, question
					ev.Text = fmt.Sprintf("answer %d: back off, doubling from 100 ms; the server's limit is per minute", i)
				default:
					ev.Type, ev.MessageType, ev.From = stick.EventNote, stick.DefaultNoteType, members[rnd.IntN(len(members))]
					ev.Text = fmt.Sprintf("note %d: the parser fails on nested brackets; see parse.go:%d, which %s",
						i, i%400, strings.Repeat("skips the closing token ", 1+rnd.IntN(6)))
				}
				saved, err := tx.AppendEvent(ev)
				if err != nil {
					return err
				}
				switch i % 20 {
				case 0:
					release = saved.Seq
				case 7:
					question = saved.Seq
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	err = a.st.Update(ctx, func(tx stick.Tx) error {
		var doc strings.Builder
		doc.WriteString("# Plan\n\n")
		for v := int64(1); v <= 100; v++ {
			fmt.Fprintf(&doc, "## Step %d\n\nParse nested brackets in parse.go, then %s\n\n", v, strings.Repeat("check the tokens ", 4))
			d := stick.Document{DocVersion: stick.DocVersion{RoomID: a.room, Version: v, Author: members[v%int64(len(members))],
				Op: stick.DocUpdate, Size: doc.Len(), CreatedAt: now}, Content: doc.String()}
			if err := tx.SaveDoc(d); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return members, a.settle(ctx)
}

// busyHandoff is a handoff in full, as a careful holder writes one.
func busyHandoff(i int) *stick.Handoff {
	return &stick.Handoff{
		Status:     fmt.Sprintf("turn %d: the lexer now keeps nested brackets; parse.go handles two levels, three fail in the test", i),
		NextAction: "make parse.go recurse for any depth, then run go test ./parse",
		Artifacts: []stick.Artifact{
			{Path: "parse.go", Lines: []int{120, 180}, Role: stick.RoleEdit, Note: "the loop to recurse"},
			{Path: "parse_test.go", Lines: []int{40, 40}, Role: stick.RoleReview},
			{Path: "docs/grammar.md", Role: stick.RoleContext},
		},
		OpenQuestions: []string{"is a depth limit wanted?"},
		DoNot:         []string{"change the lexer's token types"},
	}
}

// sseEvent is one event of a live stream, and when its last line was
// read.
type sseEvent struct {
	id   int64
	name string
	data string
	at   time.Time
}

// liveStream is a page's live stream of a room, read as EventSource does.
type liveStream struct {
	resp *http.Response
	in   *bufio.Reader
}

// openLive opens the live stream of room after seq and returns once the
// hub answered with its headers.
func (p *pageReader) openLive(ctx context.Context, room string, after int64) (*liveStream, error) {
	req, err := p.request(ctx, "/rooms/"+room+"/live?after="+strconv.FormatInt(after, 10))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := p.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, fmt.Errorf("GET live stream: %s %s: %.200s", resp.Status, resp.Header.Get("Content-Type"), b)
	}
	return &liveStream{resp: resp, in: bufio.NewReaderSize(resp.Body, 64<<10)}, nil
}

// next reads the stream up to the end of its next event, skipping
// comments and the retry field; comments counts the comments skipped.
func (s *liveStream) next(comments *int) (sseEvent, error) {
	var ev sseEvent
	seen := false
	for {
		line, err := s.in.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if seen && ev.name == "roster" {
				// The roster the page shows, sent again as it changed:
				// not an event of the room's log.
				ev, seen = sseEvent{}, false
				continue
			}
			if seen {
				ev.at = time.Now()
				return ev, nil
			}
		case strings.HasPrefix(line, ":"):
			if comments != nil {
				*comments++
			}
		case strings.HasPrefix(line, "retry: "):
		case strings.HasPrefix(line, "id: "):
			ev.id, err = strconv.ParseInt(line[len("id: "):], 10, 64)
			if err != nil {
				return ev, fmt.Errorf("bad id line %q", line)
			}
			seen = true
		case strings.HasPrefix(line, "event: "):
			ev.name, seen = line[len("event: "):], true
		case strings.HasPrefix(line, "data: "):
			ev.data += line[len("data: "):] + "\n"
			seen = true
		default:
			return ev, fmt.Errorf("the stream sent %q, which is not Server-Sent Events", line)
		}
	}
}

// close ends the stream.
func (s *liveStream) close() { s.resp.Body.Close() }
