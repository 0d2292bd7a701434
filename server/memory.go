package server

import (
	"bytes"
	"encoding/json"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// The room's shared memory: notes, the catch-up of its log, its document,
// the search over every room, and the export of one.

type noteIn struct {
	Text            string          `json:"text" jsonschema:"The note."`
	MessageType     string          `json:"message_type,omitempty" jsonschema:"note (default), question, answer, decision, or x-<name>."`
	ReplyTo         int64           `json:"reply_to,omitempty" jsonschema:"The event_seq it answers."`
	Metadata        json.RawMessage `json:"metadata,omitempty" jsonschema:"A JSON object for tools."`
	ClientMessageID string          `json:"client_message_id,omitempty" jsonschema:"Idempotency key of the note: the same id posts once."`
	To              []string        `json:"to,omitempty" jsonschema:"Recipients: agent ids, handles or display names; none (or all) for the whole room. Routing, not privacy."`
	Interrupt       bool            `json:"interrupt,omitempty" jsonschema:"With to: end the recipients' wait_for_turn at once."`
	Channel         string          `json:"channel,omitempty" jsonschema:"The channel (default general; see /channels)."`
}

func (n noteIn) note() stick.Note {
	meta := n.Metadata
	if string(meta) == "null" {
		meta = nil
	}
	return stick.Note{Text: n.Text, Type: stick.NoteType(n.MessageType), ReplyTo: n.ReplyTo, Metadata: meta, ClientMessageID: n.ClientMessageID,
		To: n.To, Interrupt: n.Interrupt, Channel: n.Channel}
}

// postNote posts a note to the room.
func postNote(c *call, in noteIn) (stick.PostResult, error) {
	return c.svc.Post(c.ctx, c.caller, c.room, in.note())
}

type syncIn struct {
	Outbox      []noteIn `json:"outbox,omitempty" jsonschema:"Notes to post first."`
	MaxItems    int      `json:"max_items,omitempty" jsonschema:"Events at most (default 50, at most 1000)."`
	IncludeSelf bool     `json:"include_self,omitempty" jsonschema:"Also your own events."`
	WaitSeconds int64    `json:"wait_seconds,omitempty" jsonschema:"With nothing new: wait this long for an event (at most 600)."`
	AutoAdvance *bool    `json:"auto_advance,omitempty" jsonschema:"false: move the cursor only by ack_through."`
	AckThrough  *int64   `json:"ack_through,omitempty" jsonschema:"The last event_seq you processed."`
	CursorReset bool     `json:"cursor_reset,omitempty" jsonschema:"Replay from the start."`
	Channels    []string `json:"channels,omitempty" jsonschema:"Only notes of these channels (other events still come)."`
}

// syncRoom posts the outbox, then returns the events this member has not
// been given yet; with wait_seconds, a long poll.
func syncRoom(c *call, in syncIn) (stick.SyncResult, error) {
	wait, err := stick.WaitSeconds(in.WaitSeconds)
	if err != nil {
		return stick.SyncResult{}, err
	}
	if wait > 0 {
		end, err := c.longPoll()
		if err != nil {
			return stick.SyncResult{}, err
		}
		defer end()
	}
	req := stick.SyncRequest{MaxItems: in.MaxItems, IncludeSelf: in.IncludeSelf, Wait: wait,
		ManualAck: in.AutoAdvance != nil && !*in.AutoAdvance, AckThrough: in.AckThrough, CursorReset: in.CursorReset, Channels: in.Channels}
	for _, n := range in.Outbox {
		req.Outbox = append(req.Outbox, n.note())
	}
	return c.svc.Sync(c.ctx, c.caller, c.room, req)
}

type docQuery struct {
	Version int64 `query:"version" jsonschema:"An older version; default: the current one."`
}

// readDoc reads a version of the room's document.
func readDoc(c *call, q docQuery) (stick.Document, error) {
	return c.svc.ReadDoc(c.ctx, c.room, q.Version)
}

type docPutIn struct {
	Content         *string `json:"content" jsonschema:"The whole new markdown; an empty string empties it."`
	ExpectedVersion *int64  `json:"expected_version" jsonschema:"The version you read (0 if never written)."`
}

// updateDoc replaces the document if it is still at expected_version.
// Both fields are required: a missing content is not an empty document,
// and a missing version is not version 0.
func updateDoc(c *call, in docPutIn) (stick.DocVersion, error) {
	switch {
	case in.Content == nil:
		return stick.DocVersion{}, stick.Errorf(stick.CodeInvalidArgument, "content is required: the whole new document (\"\" empties it)").
			With("field", "content").WithHint("GET the document, edit its content, and PUT all of it with expected_version set to the version you read")
	case in.ExpectedVersion == nil:
		return stick.DocVersion{}, stick.Errorf(stick.CodeInvalidArgument, "expected_version is required: the version you read (0 for a document never written)").
			With("field", "expected_version").WithHint("GET the document first and send its version as expected_version")
	}
	d, err := c.svc.UpdateDoc(c.ctx, c.caller, c.room, *in.Content, *in.ExpectedVersion)
	return d.DocVersion, err
}

type docAppendIn struct {
	Text    string `json:"text" jsonschema:"Markdown to add."`
	Section string `json:"section,omitempty" jsonschema:"A heading to add under (made if missing), e.g. Decisions."`
}

// appendDoc adds text to the end of the document or of a section.
func appendDoc(c *call, in docAppendIn) (stick.DocVersion, error) {
	d, err := c.svc.AppendDoc(c.ctx, c.caller, c.room, in.Text, in.Section)
	return d.DocVersion, err
}

type historyOut struct {
	RoomID string `json:"room_id"`
	// Versions are every version of the document, oldest first.
	Versions []stick.DocVersion `json:"versions"`
}

// docHistory lists the document's versions.
func docHistory(c *call, _ struct{}) (historyOut, error) {
	vs, err := c.svc.DocHistory(c.ctx, c.room)
	if vs == nil {
		vs = []stick.DocVersion{}
	}
	return historyOut{RoomID: c.room, Versions: vs}, err
}

type searchQuery struct {
	Q           string `query:"q" jsonschema:"Words, all required (stemmed); \"a phrase\"; word* for a prefix; OR between alternatives."`
	RoomID      string `query:"room_id" jsonschema:"Only this room."`
	Type        string `query:"type" jsonschema:"Only this kind: a note type, release, pass, close, or document."`
	FromAgentID string `query:"from_agent_id" jsonschema:"Only by this agent_id."`
	Limit       int    `query:"limit" jsonschema:"Hits at most (default 20, at most 200)."`
}

type searchOut struct {
	Query string `json:"query"`
	// Hits are the matches, best first.
	Hits []stick.SearchHit `json:"hits"`
}

// search runs a full-text search over the rooms' logs and documents.
func search(c *call, q searchQuery) (searchOut, error) {
	hits, err := c.svc.Search(c.ctx, stick.SearchQuery{Query: q.Q, RoomID: q.RoomID, Type: q.Type, From: q.FromAgentID, Limit: q.Limit})
	if hits == nil {
		hits = []stick.SearchHit{}
	}
	return searchOut{Query: q.Q, Hits: hits}, err
}

type exportQuery struct {
	Format string `query:"format" jsonschema:"md (the default) or json."`
	After  int64  `query:"after" jsonschema:"Only the events after this event_seq."`
}

// export returns the whole room in one consistent read: as markdown for a
// reader, or as JSON (the transcript) for a tool.
func export(c *call, q exportQuery) (any, error) {
	switch q.Format {
	case "", "md", "markdown", "json":
	default:
		return nil, stick.Errorf(stick.CodeInvalidArgument, "format must be md or json, not %s", stick.Quote(q.Format)).With("field", "format")
	}
	t, err := c.svc.Transcript(c.ctx, c.room, q.After)
	if err != nil {
		return nil, err
	}
	if q.Format == "json" {
		return t, nil
	}
	var b bytes.Buffer
	render.Markdown(&b, t)
	return text{contentType: "text/markdown; charset=utf-8", body: b.Bytes()}, nil
}
