package stick

import (
	"context"
	"time"
)

// MaxDocLen is the largest room document, in bytes.
const MaxDocLen = 1 << 20

// DocOp says how a document version was made.
type DocOp string

// The document operations.
const (
	// DocUpdate replaced the whole content (UpdateDoc).
	DocUpdate DocOp = "update"
	// DocAppend added text at the end or under a section (AppendDoc).
	DocAppend DocOp = "append"
	// DocConclusion wrote the Conclusion section when the room was closed.
	DocConclusion DocOp = "conclusion"
)

// DocVersion describes one version of a room's document: who made it, when,
// how and how big it is.
type DocVersion struct {
	RoomID string `json:"room_id"`
	// Version counts the writes: 1 is the first, 0 the empty document no one has written.
	Version int64 `json:"version"`
	// Author is the member who wrote this version.
	Author string `json:"author,omitempty"`
	Op     DocOp  `json:"op,omitempty"`
	// Size is the content's length in bytes.
	Size int `json:"size"`
	// EventSeq is the event that recorded the write (a doc event, or the close for a conclusion).
	EventSeq  int64     `json:"event_seq,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
}

// Document is one version of a room's shared markdown document.
type Document struct {
	DocVersion
	Content string `json:"content"`
}

// ReadDoc returns version of the room's document, or the current one when
// version is 0. A room whose document was never written has the empty
// version 0. Closed rooms stay readable; no membership is needed.
//
// Errors: invalid_argument (room_id, version), room_not_found.
func (s *Service) ReadDoc(ctx context.Context, roomID string, version int64) (Document, error) {
	if err := s.allow(ActionReadDoc); err != nil {
		return Document{}, err
	}
	if err := requireRoomID(roomID); err != nil {
		return Document{}, err
	}
	if version < 0 {
		return Document{}, invalidArg("version", "version must be 0 (the current one) or a version number, not %d", version)
	}
	var out Document
	err := s.store.View(ctx, func(tx Tx) error {
		if err := s.roomExists(tx, roomID); err != nil {
			return err
		}
		cur, err := currentDoc(tx, roomID)
		if err != nil {
			return err
		}
		if version == 0 || version == cur.Version {
			out = cur
			return nil
		}
		if version > cur.Version {
			return invalidArg("version", "room %s's document has no version %d; its current version is %d", roomID, version, cur.Version).
				With("current_version", cur.Version).WithHint("list the versions with room_doc_history")
		}
		d, ok, err := tx.Doc(roomID, version)
		if err != nil {
			return err
		}
		if !ok {
			return Errorf(CodeInternal, "room %s's document version %d is missing from its history", roomID, version)
		}
		out = d
		return nil
	})
	return out, err
}

// DocHistory returns every version of the room's document, oldest first,
// without content (read one with ReadDoc).
//
// Errors: invalid_argument (room_id), room_not_found.
func (s *Service) DocHistory(ctx context.Context, roomID string) ([]DocVersion, error) {
	if err := s.allow(ActionDocHistory); err != nil {
		return nil, err
	}
	if err := requireRoomID(roomID); err != nil {
		return nil, err
	}
	var out []DocVersion
	err := s.store.View(ctx, func(tx Tx) error {
		if err := s.roomExists(tx, roomID); err != nil {
			return err
		}
		var err error
		out, err = tx.DocHistory(roomID)
		return err
	})
	if out == nil {
		out = []DocVersion{}
	}
	return out, err
}

// UpdateDoc replaces the room's document with content, if its current
// version is still expected (the version the caller read; 0 for a document
// never written). Otherwise nothing is written and the error is
// version_conflict, with the current version, author and time in its
// details: read again, merge, and update with the new version. Content equal
// to the current one writes nothing and returns the current version. Any
// member may write, with or without the stick; each write is also a doc
// event in the room's log.
//
// Errors: invalid_argument (content, expected_version), room_not_found,
// room_closed, unknown_member, version_conflict.
func (s *Service) UpdateDoc(ctx context.Context, c Caller, roomID, content string, expected int64) (Document, error) {
	if err := s.act(ActionUpdateDoc, c); err != nil {
		return Document{}, err
	}
	if problem := textProblem(content, MaxDocLen, false); problem != "" {
		return Document{}, invalidArg("content", "content %s", problem)
	}
	if expected < 0 {
		return Document{}, invalidArg("expected_version", "expected_version must be the version you read (0 for a document never written), not %d", expected)
	}
	var out Document
	err := s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		cur, err := currentDoc(tx, roomID)
		if err != nil {
			return err
		}
		if cur.Version != expected {
			e := Errorf(CodeVersionConflict, "the document is at version %d, not %d: %s wrote it at %s",
				cur.Version, expected, cur.Author, cur.CreatedAt.UTC().Format(time.RFC3339))
			if cur.Version == 0 {
				e = Errorf(CodeVersionConflict, "the document has never been written, so its version is 0, not %d", expected)
			}
			return e.
				With("current_version", cur.Version).With("expected_version", expected).
				With("updated_by", cur.Author).With("updated_at", cur.CreatedAt).
				WithHint("read the document again (read_room_doc), merge your change into version %d, and update with expected_version %d", cur.Version, cur.Version)
		}
		if content == cur.Content {
			out = cur
			return nil
		}
		out, err = writeDoc(tx, sn, c, cur, content, DocUpdate, "", nil)
		return err
	})
	return out, err
}

// AppendDoc adds text to the end of the room's document, or to the end of
// its "## section" (made at the end when there is none). The append happens
// inside one transaction, so concurrent appends never lose each other and
// need no version. Headings inside fenced code blocks are not sections.
//
// Errors: invalid_argument (text, section), room_not_found, room_closed,
// unknown_member.
func (s *Service) AppendDoc(ctx context.Context, c Caller, roomID, text, section string) (Document, error) {
	if err := s.act(ActionAppendDoc, c); err != nil {
		return Document{}, err
	}
	if problem := textProblem(text, MaxNoteLen, true); problem != "" {
		return Document{}, invalidArg("text", "text %s", problem)
	}
	title, err := sectionTitle(section)
	if err != nil {
		return Document{}, err
	}
	var out Document
	err = s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		cur, err := currentDoc(tx, roomID)
		if err != nil {
			return err
		}
		content := appendUnder(cur.Content, title, text)
		if len(content) > MaxDocLen {
			return invalidArg("text", "appending %d bytes would make the document %d bytes; at most %d are allowed", len(text), len(content), MaxDocLen).
				WithHint("shorten the document with update_room_doc, or post the text as a note")
		}
		out, err = writeDoc(tx, sn, c, cur, content, DocAppend, title, &text)
		return err
	})
	return out, err
}

// currentDoc returns the room's current document, or the empty version 0.
func currentDoc(tx Tx, roomID string) (Document, error) {
	d, ok, err := tx.Doc(roomID, 0)
	if err != nil || ok {
		return d, err
	}
	return Document{DocVersion: DocVersion{RoomID: roomID}}, nil
}

// writeDoc stores content as the document's next version and records a doc
// event for it; appended is the appended text, if the write was an append.
func writeDoc(tx Tx, sn *snapshot, c Caller, cur Document, content string, op DocOp, section string, appended *string) (Document, error) {
	d := Document{DocVersion: DocVersion{RoomID: sn.room.ID, Version: cur.Version + 1, Author: c.AgentID, Op: op,
		Size: len(content), CreatedAt: sn.now}, Content: content}
	data := encodeData(DocData{Version: d.Version, Op: op, Size: d.Size, Section: section})
	ev := Event{RoomID: sn.room.ID, TurnID: sn.room.TurnID, Type: EventDoc, From: c.AgentID, Data: data, CreatedAt: sn.now}
	if appended != nil {
		ev.Text = *appended
	}
	ev, err := appendEvent(tx, ev)
	if err != nil {
		return Document{}, err
	}
	d.EventSeq = ev.Seq
	return d, tx.SaveDoc(d)
}
