package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/stick"
)

// waitForTurn blocks in the service's WaitForTurn. When the client asked for
// progress (a progress token), it reports every ProgressEvery how long it
// has waited; a cancelled request or a closed connection ends it at once.
func (b *toolbox) waitForTurn(ctx context.Context, cl call, in waitIn) (waitOut, string, error) {
	maxWait, err := ms("max_wait_ms", in.MaxWaitMS)
	if err != nil {
		return waitOut{}, "", err
	}
	wr := stick.WaitRequest{RoomID: in.RoomID, Cursor: in.Cursor, MaxWait: maxWait}
	if token := cl.req.Params.GetProgressToken(); token != nil && (wr.MaxWait == nil || *wr.MaxWait > 0) {
		stop := b.reportProgress(ctx, cl.req, token, wr.MaxWait)
		defer stop()
	}
	done := cl.wait()
	res, err := cl.svc.WaitForTurn(ctx, cl.caller, wr)
	done()
	if err != nil {
		return waitOut{}, "", err
	}
	out := waitOut{WaitResult: res, AgentID: cl.caller.AgentID, NextStep: nextAfterWait(res, time.Now(), cl.kept)}
	return out, textWait(out), nil
}

// reportProgress sends progress notifications until the returned function
// is called; it returns only once no notification can follow, so none
// arrives after the tool's result.
func (b *toolbox) reportProgress(ctx context.Context, req *mcp.CallToolRequest, token any, maxWait *time.Duration) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	start := time.Now()
	var total float64
	if maxWait != nil {
		total = min(*maxWait, stick.MaxWaitLimit).Seconds()
	}
	go func() {
		defer close(done)
		t := time.NewTicker(b.progressEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				waited := now.Sub(start).Round(time.Second)
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: waited.Seconds(), Total: total,
					Message: fmt.Sprintf("waiting for the stick (%s so far)", waited),
				})
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
