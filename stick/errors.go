package stick

import (
	"context"
	"errors"
	"fmt"
)

// Code is the stable, snake_case identifier of an error. Frontends show it
// verbatim, so callers (people, models and scripts) can act on it.
type Code string

// The error codes a Service operation can return. Each operation's doc comment
// lists the ones it produces and in which order they are checked.
const (
	// CodeInvalidArgument: a request field is missing or malformed; details["field"] names it.
	CodeInvalidArgument Code = "invalid_argument"
	// CodeInvalidHandoff: a release or pass handoff failed validation; details["field"] names the field.
	CodeInvalidHandoff Code = "invalid_handoff"
	// CodeRoomNotFound: no room has the given room_id.
	CodeRoomNotFound Code = "room_not_found"
	// CodeRoomClosed: the room was closed; it stays readable but accepts no turns.
	CodeRoomClosed Code = "room_closed"
	// CodeUnknownMember: the caller or the named agent is not an (active) member of the room.
	CodeUnknownMember Code = "unknown_member"
	// CodeTurnMismatch: expected_turn_id is not the room's current turn.
	CodeTurnMismatch Code = "turn_mismatch"
	// CodeStaleLease: the turn matches but the caller does not hold the current lease.
	CodeStaleLease Code = "stale_lease"
	// CodeTakeoverNotAvailable: nothing has timed out or died, so there is nothing to take over.
	CodeTakeoverNotAvailable Code = "takeover_not_available"
	// CodeTakeoverIneligible: takeover is open, but not to this caller (for example the prior-owner guard).
	CodeTakeoverIneligible Code = "takeover_ineligible"
	// CodeStickHeld: the operation needs the stick to be free (or held by the caller), and another member holds it.
	CodeStickHeld Code = "stick_held"
	// CodeVersionConflict: the room document changed since the version the
	// caller read; details["current_version"] is the version to merge with.
	CodeVersionConflict Code = "version_conflict"
	// CodeAgentIDInUse: the agent id names a member of the room that only
	// its reclaim_token may act as.
	CodeAgentIDInUse Code = "agent_id_in_use"
	// CodeSearchUnavailable: the store has no full-text index, or its index
	// is out of date or still being built; the hint says whether waiting helps.
	CodeSearchUnavailable Code = "search_unavailable"
	// CodeDBBusy: the store stayed locked by other processes (its write lock, usually) for longer than its busy timeout.
	CodeDBBusy Code = "db_busy"
	// CodeDBUnavailable: a database server the store uses cannot be
	// reached, refused the credentials, or dropped the connection; the
	// hint says what to check. Nothing was committed by the failed call
	// unless it says so; retrying once the server is back is safe for an
	// operation that is safe to retry.
	CodeDBUnavailable Code = "db_unavailable"
	// CodeDBSchemaMismatch: the database was written by a newer or unknown version of stick.
	CodeDBSchemaMismatch Code = "db_schema_mismatch"
	// CodeUnsupportedFilesystem: the data directory is on a network filesystem where the store's locking is unsafe.
	CodeUnsupportedFilesystem Code = "unsupported_filesystem"
	// CodeDataDir: the data directory cannot be created or written.
	CodeDataDir Code = "data_dir_unusable"
	// CodeDBCorrupt: the database is not usable: it is damaged, or no database at all.
	CodeDBCorrupt Code = "db_corrupt"
	// CodeHarness: a coding-agent harness could not be set up: its command
	// failed, printed what stick cannot read, or its configuration file is
	// not valid JSON. The message names the harness and the file or command;
	// the hint says what to fix. Nothing was changed for that harness.
	CodeHarness Code = "harness_error"
	// CodeUnauthenticated: a request to a hub carried no credential, or one
	// that is unknown, revoked or expired.
	CodeUnauthenticated Code = "unauthenticated"
	// CodeForbidden: the credential is valid but its role may not do this,
	// or its rooms do not include this one.
	CodeForbidden Code = "forbidden"
	// CodeCanceled: the caller's context was cancelled or timed out before the operation finished.
	CodeCanceled Code = "canceled"
	// CodeInternal: an unexpected failure (I/O, a bug); the message says what failed.
	CodeInternal Code = "internal"
)

// Error is the one error type of stick. Code is stable; Message is for people;
// Hint says what to do next; Details carries structured facts such as
// "current_owner", "current_turn_id", "room_state", "reserved_for" and
// "field", so a caller can recover without parsing the message.
type Error struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Hint    string         `json:"hint,omitempty"`
	Details map[string]any `json:"details,omitempty"`
	Err     error          `json:"-"`
}

// Errorf returns a new Error with the given code and formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error implements the error interface as "code: message".
func (e *Error) Error() string {
	if e.Err != nil && e.Code == CodeInternal {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code, so
// errors.Is(err, &stick.Error{Code: stick.CodeStaleLease}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == "" && e.Code != ""
}

// With sets one detail and returns e, for chaining.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = make(map[string]any)
	}
	e.Details[key] = value
	return e
}

// WithHint sets the hint and returns e, for chaining.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// Wrap sets the underlying cause and returns e, for chaining.
func (e *Error) Wrap(err error) *Error {
	e.Err = err
	return e
}

// ErrorCode returns the code of err: "" for nil, the Code of a wrapped *Error,
// CodeCanceled for a context's cancellation or deadline, and CodeInternal for
// any other error.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	return AsError(err).Code
}

// AsError returns err as an *Error, converting a foreign error into one (with
// CodeCanceled or CodeInternal) so that every frontend can show a code,
// message and details. The original error stays reachable with errors.Is.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeCanceled, Message: err.Error(), Err: err}
	}
	return &Error{Code: CodeInternal, Message: err.Error(), Err: err}
}

func invalidArg(field, format string, args ...any) *Error {
	return Errorf(CodeInvalidArgument, format, args...).With("field", field)
}
