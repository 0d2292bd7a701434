package wake

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"
)

// maxReply bounds the inbox's answer that is read, in bytes.
const maxReply = 4 << 10

// The two lines sent to a Claude Code inbox, in this field order: the
// session's token, then the text as a user message.
type (
	inboxAuth struct {
		Type  string `json:"type"`
		Token string `json:"token"`
	}
	inboxUser struct {
		Type    string       `json:"type"`
		Message inboxMessage `json:"message"`
	}
	inboxMessage struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
)

// inboxLines encodes the auth line and the user line, each ending with a
// newline, and returns them with the length of the auth line: a write that
// stops within it has sent nothing of the text.
func inboxLines(token, text string) ([]byte, int) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// Encoding structs of strings cannot fail.
	_ = enc.Encode(inboxAuth{Type: "auth", Token: token})
	auth := b.Len()
	_ = enc.Encode(inboxUser{Type: "user", Message: inboxMessage{Role: "user", Content: text}})
	return b.Bytes(), auth
}

// inbox delivers text to a Claude Code session's inbox socket: it connects,
// writes the auth line and the user line and nothing else, and reads the
// answer until end of file or one line, all before ctx's deadline. The
// socket closing or answering after both lines is Queued, unless the
// answer is JSON with "ok":false or an "error"; a connection that cannot
// be made, or a failure before any byte of the text left, is Failed; no
// answer in time after the text (partly) left is Ambiguous.
func inbox(ctx context.Context, r Registration, text string, timeout time.Duration) Delivery {
	token := r.token()
	result := func(s State, msg string) Delivery {
		return Delivery{Transport: ClaudeInbox, State: s, Detail: detail(msg, token, text)}
	}
	switch {
	case r.Address == "":
		return result(Failed, "no inbox socket path")
	case token == "":
		return result(Failed, "no inbox token")
	}

	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "unix", r.Address)
	if err != nil {
		return result(Failed, dialProblem(ctx, err, r.Address, timeout))
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(deadline); err != nil {
			return result(Failed, "cannot bound the inbox connection: "+err.Error())
		}
	}
	// A cancelled ctx ends a blocked write or read at once.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	lines, authLen := inboxLines(token, text)
	if n, err := conn.Write(lines); err != nil {
		why := problem(ctx, err, timeout)
		if n <= authLen {
			return result(Failed, "the message was not sent: "+why)
		}
		return result(Ambiguous, "the message was partly sent, then "+why+"; it may have been queued")
	}

	reply, err := bufio.NewReaderSize(conn, maxReply).ReadSlice('\n')
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, bufio.ErrBufferFull):
		return judgeReply(reply, result)
	}
	return result(Ambiguous, "the message was sent, then "+problem(ctx, err, timeout)+"; it may have been queued")
}

// judgeReply reads the inbox's answer to a sent message: none, or
// anything but a refusal, is Queued; JSON with "ok":false or an "error" is
// Failed, with the error's text.
func judgeReply(line []byte, result func(State, string) Delivery) Delivery {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return result(Queued, "the inbox took the message and closed the connection")
	}
	var reply struct {
		OK    *bool           `json:"ok"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &reply) != nil {
		return result(Queued, "the inbox took the message")
	}
	msg := errorText(reply.Error)
	if msg == "" && (reply.OK == nil || *reply.OK) {
		return result(Queued, "the inbox took the message")
	}
	if msg == "" {
		msg = "no reason given"
	}
	return result(Failed, "the inbox refused the message: "+msg)
}

// errorText is the text of an answer's "error" member: a string, an
// object's "message", or the JSON itself; "" when there is no error.
func errorText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "", "null", "false", `""`:
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return string(raw)
}

// dialProblem says why the inbox could not be reached.
func dialProblem(ctx context.Context, err error, socket string, timeout time.Duration) string {
	switch {
	case ctx.Err() != nil:
		return "cannot connect to the inbox: " + problem(ctx, err, timeout)
	case errors.Is(err, fs.ErrNotExist):
		return "no inbox socket at " + socket
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the inbox socket refused the connection: no session listens at " + socket
	}
	return "cannot connect to the inbox: " + err.Error()
}

// problem says why an operation bounded by ctx ended with err: the
// deadline, a cancellation, or err itself.
func problem(ctx context.Context, err error, timeout time.Duration) string {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return "the attempt was cancelled"
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("no answer within %s", timeout)
	}
	return err.Error()
}
