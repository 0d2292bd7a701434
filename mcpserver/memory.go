package mcpserver

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stickhq/stick/stick"
)

// The room's shared working memory: its versioned document and the search
// over every room's log and documents.

type readDocIn struct {
	RoomID  string `json:"room_id"`
	Version int64  `json:"version,omitempty" jsonschema:"An older version; default: the current one."`
}

type updateDocIn struct {
	RoomID          string  `json:"room_id"`
	Content         *string `json:"content" jsonschema:"The whole new markdown; \"\" empties it."`
	ExpectedVersion *int64  `json:"expected_version" jsonschema:"The version you read (0 if never written)."`
}

type appendDocIn struct {
	RoomID  string `json:"room_id"`
	Text    string `json:"text"`
	Section string `json:"section,omitempty" jsonschema:"A heading to add under (made if missing), e.g. Decisions."`
}

type searchIn struct {
	Query       string `json:"query" jsonschema:"Words, all required (stemmed); \"a phrase\"; word* for a prefix; OR between alternatives."`
	RoomID      string `json:"room_id,omitempty" jsonschema:"Only this room."`
	Type        string `json:"type,omitempty" jsonschema:"Only this kind."`
	FromAgentID string `json:"from_agent_id,omitempty" jsonschema:"Only by this agent_id."`
	Limit       int    `json:"limit,omitempty"`
}

func (searchIn) refine(s *jsonschema.Schema, _ stick.Policy) {
	between(s, "limit", 0, stick.MaxSearchLimit, "Hits at most (default %d).", stick.DefaultSearchLimit)
	s.Properties["type"].Pattern = stick.SearchTypePattern
}

// readRoomDoc returns a version of the room's document, with its content.
func readRoomDoc(ctx context.Context, cl call, in readDocIn) (docOut, string, error) {
	d, err := cl.svc.ReadDoc(ctx, in.RoomID, in.Version)
	if err != nil {
		return docOut{}, "", err
	}
	out := docOut{Document: d, NextStep: nextAfterReadDoc(d, in.Version)}
	return out, textReadDoc(out), nil
}

// updateRoomDoc replaces the document if it is still at expected_version.
// content and expected_version must be given: a missing content is not an
// empty document, and a missing version is not version 0.
func updateRoomDoc(ctx context.Context, cl call, in updateDocIn) (docVersionOut, string, error) {
	switch {
	case in.Content == nil:
		return docVersionOut{}, "", stick.Errorf(stick.CodeInvalidArgument, "content is required: the whole new document (\"\" empties it)").
			With("field", "content").WithHint("read_room_doc, edit its content, and send all of it with expected_version set to the version you read")
	case in.ExpectedVersion == nil:
		return docVersionOut{}, "", stick.Errorf(stick.CodeInvalidArgument, "expected_version is required: the version you read with read_room_doc (0 for a document never written)").
			With("field", "expected_version").WithHint("read_room_doc first and pass its version as expected_version")
	}
	d, err := cl.svc.UpdateDoc(ctx, cl.caller, in.RoomID, *in.Content, *in.ExpectedVersion)
	if err != nil {
		return docVersionOut{}, "", err
	}
	out := docVersionOut{DocVersion: d.DocVersion, NextStep: nextAfterDocWrite(d.DocVersion)}
	return out, textDocWrite(out, d.Version == *in.ExpectedVersion), nil
}

// appendRoomDoc adds text to the end of the document or of one of its sections.
func appendRoomDoc(ctx context.Context, cl call, in appendDocIn) (docVersionOut, string, error) {
	d, err := cl.svc.AppendDoc(ctx, cl.caller, in.RoomID, in.Text, in.Section)
	if err != nil {
		return docVersionOut{}, "", err
	}
	out := docVersionOut{DocVersion: d.DocVersion, NextStep: nextAfterDocWrite(d.DocVersion)}
	return out, textDocWrite(out, false), nil
}

// roomDocHistory lists the document's versions, oldest first.
func roomDocHistory(ctx context.Context, cl call, in roomIn) (docHistoryOut, string, error) {
	vs, err := cl.svc.DocHistory(ctx, in.RoomID)
	if err != nil {
		return docHistoryOut{}, "", err
	}
	out := docHistoryOut{RoomID: in.RoomID, Versions: vs,
		NextStep: "read one version with read_room_doc(room_id " + in.RoomID + ", version); leave version out for the current one"}
	return out, textDocHistory(out), nil
}

// searchEvents runs a full-text search over the rooms' logs and documents.
func searchEvents(ctx context.Context, cl call, in searchIn) (searchOut, string, error) {
	hits, err := cl.svc.Search(ctx, stick.SearchQuery{Query: in.Query, RoomID: in.RoomID, Type: in.Type, From: in.FromAgentID, Limit: in.Limit})
	if err != nil {
		return searchOut{}, "", err
	}
	out := searchOut{Query: in.Query, Hits: hits,
		NextStep: "for an event hit, read its context with get_room_events(room_id, after = event_seq - 1); for a document hit, read_room_doc(room_id)"}
	if len(hits) == 0 {
		out.NextStep = "try fewer or other words, a prefix (word*) or OR between alternatives, or drop the filters"
	}
	return out, textSearch(out), nil
}
