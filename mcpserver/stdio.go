package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bounds of one message read by StdioTransport. A message past either
// is answered with a JSON-RPC error and dropped; the server goes on.
const (
	// MaxMessageBytes is the longest line accepted, newline excluded: room
	// for the largest room document (1 MiB) even if a client escapes every
	// byte of it as \u00XX. A longer line is discarded as it is read, never
	// held in memory whole.
	MaxMessageBytes = 8 << 20
	// MaxMessageDepth is the deepest nesting of objects and arrays accepted
	// in one message; stick's own tool arguments need fewer than ten.
	MaxMessageDepth = 64
)

// StdioTransport serves MCP over newline-delimited JSON-RPC 2.0 on In and
// Out (the MCP stdio transport: one message per line). Unlike the SDK's
// stdio transport, a malformed message never ends the connection: a line
// that is not JSON is answered with a parse error (-32700), and one that is
// not a JSON-RPC 2.0 request object (a batch, a bare value, a wrong
// "jsonrpc" or "id", nesting deeper than MaxMessageDepth, a line longer
// than MaxMessageBytes) with an invalid-request error (-32600), carrying
// the request's id when it can be read and null otherwise. Only the end of
// In, a failed read or write, or the server's context ends the connection.
type StdioTransport struct {
	// In is read for requests; nil means os.Stdin.
	In io.ReadCloser
	// Out receives responses, one per line; nil means os.Stdout.
	Out io.Writer
	// Answered, when set, is called once, after the first message is
	// written to Out: 'stick mcp' lets the garbage collector run from then
	// on, so it does not delay that first answer.
	Answered func()
}

// Connect implements mcp.Transport: it starts reading In.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	in, out := t.In, t.Out
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	c := &lineConn{in: in, out: out, answered: t.Answered, incoming: make(chan readResult), closed: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

// lineConn is the connection of a StdioTransport.
type lineConn struct {
	in  io.ReadCloser
	out io.Writer
	// writeMu keeps each written message on its own line: the SDK's
	// responses and the transport's own error answers share Out.
	writeMu sync.Mutex
	// answered is StdioTransport.Answered, nil once called.
	answered func()
	// incoming carries each valid message, or the error that ends reading.
	incoming  chan readResult
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// SessionID implements mcp.Connection: a stdio connection has none.
func (c *lineConn) SessionID() string { return "" }

// Read implements mcp.Connection: the next valid message.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection: one message on one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r, ok := msg.(*jsonrpc.Response); ok {
		msg = shortError(r)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	return c.writeLine(data)
}

// maxErrorMessage bounds the message of a JSON-RPC error answered: the
// SDK's own errors may quote a whole bad parameter.
const maxErrorMessage = 1 << 10

// shortError returns r with the message of its JSON-RPC error, if any,
// cut to maxErrorMessage bytes (at a character boundary), its code kept.
func shortError(r *jsonrpc.Response) *jsonrpc.Response {
	if r.Error == nil || len(r.Error.Error()) <= maxErrorMessage {
		return r
	}
	msg := r.Error.Error()
	cut := maxErrorMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	short := &jsonrpc.Error{Message: msg[:cut] + "…"}
	var we *jsonrpc.Error
	if errors.As(r.Error, &we) {
		short.Code, short.Data = we.Code, we.Data
	}
	out := *r
	out.Error = short
	return &out
}

// Close implements mcp.Connection: it closes In, which ends the reading.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.in.Close()
		close(c.closed)
	})
	return c.closeErr
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	if c.answered != nil {
		c.answered()
		c.answered = nil
	}
	return err
}

// readLoop reads In line by line, answers each bad line itself and hands
// every good message to Read, until In ends or fails.
func (c *lineConn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxMessageBytes)
		var msg jsonrpc.Message
		var werr error
		switch {
		case tooLong:
			werr = c.answer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the message is longer than %d bytes, the limit of one line; it was discarded", MaxMessageBytes))
		case len(bytes.TrimSpace(line)) > 0:
			msg, werr = c.check(line)
		}
		if werr != nil {
			c.deliver(readResult{err: werr})
			return
		}
		if msg != nil && !c.deliver(readResult{msg: msg}) {
			return
		}
		if err != nil {
			c.deliver(readResult{err: err})
			return
		}
	}
}

// deliver hands r to Read; false when the connection closed first.
func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads one line without its end of line. A line longer than max
// is read to its end but not kept: tooLong is true and line is nil. err is
// set when the input ends or fails; line then holds what came before it.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, rerr := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // room for "\r\n"
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if rerr == bufio.ErrBufferFull {
			continue
		}
		if tooLong {
			return nil, true, rerr
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > max {
			return nil, true, rerr
		}
		return line, false, rerr
	}
}

// check returns the message line holds, or answers a bad one itself and
// returns neither a message nor an error (or the error of writing the
// answer).
func (c *lineConn) check(line []byte) (jsonrpc.Message, error) {
	deep := tooDeep(line, MaxMessageDepth)
	if !json.Valid(line) {
		if deep {
			return nil, c.answer(nil, jsonrpc.CodeInvalidRequest, depthMessage)
		}
		return nil, c.answer(nil, jsonrpc.CodeParseError, "parse error: the message is not valid JSON (one JSON-RPC 2.0 request object per line)")
	}
	switch line[firstNonSpace(line)] {
	case '{':
	case '[':
		return nil, c.answer(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches (arrays) are not supported by this MCP version; send one request object per line")
	default:
		return nil, c.answer(nil, jsonrpc.CodeInvalidRequest, "invalid request: the message is not a JSON-RPC 2.0 request object")
	}
	var fields map[string]json.RawMessage
	if deep || json.Unmarshal(line, &fields) != nil {
		// A message too deep for the SDK is not decoded further: only its id
		// is looked for, by a decoder whose own depth limit is far larger.
		id := readID(line)
		if deep {
			return nil, c.answer(id, jsonrpc.CodeInvalidRequest, depthMessage)
		}
		return nil, c.answer(id, jsonrpc.CodeInvalidRequest, "invalid request: the message cannot be read as a JSON-RPC 2.0 request object")
	}
	id, idOK := validID(fields["id"])
	if !idOK {
		return nil, c.answer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf(`invalid request: "id" must be a number, a string of at most %d bytes, or null`, maxIDLen))
	}
	if v, ok := fields["jsonrpc"]; !ok || !bytes.Equal(bytes.TrimSpace(v), []byte(`"2.0"`)) {
		return nil, c.answer(id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if m, ok := fields["method"]; ok {
		if m = bytes.TrimSpace(m); len(m) == 0 || m[0] != '"' {
			return nil, c.answer(id, jsonrpc.CodeInvalidRequest, `invalid request: "method" must be a string`)
		}
	} else if id == nil {
		return nil, c.answer(nil, jsonrpc.CodeInvalidRequest, `invalid request: a request needs a "method"`)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, c.answer(id, jsonrpc.CodeInvalidRequest, "invalid request: the message is not a valid JSON-RPC 2.0 message")
	}
	return msg, nil
}

var depthMessage = fmt.Sprintf("invalid request: the message nests objects and arrays more than %d levels deep", MaxMessageDepth)

// answer writes an error response with id (nil: null); its error is that of
// the write, which ends the connection.
func (c *lineConn) answer(id json.RawMessage, code int64, message string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

// readID returns the id of the request object line, if it has one that is
// a string or a number.
func readID(line []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return nil
	}
	id, _ := validID(probe.ID)
	return id
}

// maxIDLen bounds the id echoed in an answer.
const maxIDLen = 256

// validID returns raw when it is an id to answer with (a string or a
// number a float64 holds), nil when absent or null; ok is false for any
// other value and for one longer than maxIDLen.
func validID(raw json.RawMessage) (id json.RawMessage, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, true
	}
	if len(raw) > maxIDLen {
		return nil, false
	}
	if raw[0] == '"' {
		return raw, true
	}
	if _, err := strconv.ParseFloat(string(raw), 64); err == nil {
		return raw, true
	}
	return nil, false
}

// tooDeep reports whether line nests objects and arrays more than max
// levels deep, counting brackets outside strings; it reads any input.
func tooDeep(line []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range line {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > max {
				return true
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return false
}

func firstNonSpace(b []byte) int {
	return len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
}
