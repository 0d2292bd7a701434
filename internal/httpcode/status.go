package httpcode

import (
	"maps"
	"net/http"
	"slices"

	"github.com/stickhq/stick/internal/replay"
	"github.com/stickhq/stick/stick"
)

// The codes of errors only the hub gives: they concern HTTP itself, not
// the protocol, so package stick has no use for them.
const (
	// NotFound: no endpoint has this path.
	NotFound stick.Code = "not_found"
	// MethodNotAllowed: the path exists, but not with this method.
	MethodNotAllowed stick.Code = "method_not_allowed"
	// TooLarge: the request body is over the hub's limit.
	TooLarge stick.Code = "request_too_large"
	// RateLimited: too many failed authentications came from the
	// client's address; Retry-After says when to try again.
	RateLimited stick.Code = "rate_limited"
	// IdempotencyKeyReused: the Idempotency-Key was used before for
	// another request (another method, path or body).
	IdempotencyKeyReused = replay.CodeReused
	// ShuttingDown: the hub is stopping; Retry-After says when to try
	// again (a restarted hub, or another one).
	ShuttingDown stick.Code = "shutting_down"
)

// statuses maps every error code to its HTTP status. A code not listed
// (one a later version of package stick adds) is a client error, 400.
var statuses = map[stick.Code]int{
	stick.CodeInvalidArgument:       http.StatusBadRequest,
	stick.CodeInvalidHandoff:        http.StatusBadRequest,
	stick.CodeUnauthenticated:       http.StatusUnauthorized,
	stick.CodeForbidden:             http.StatusForbidden,
	stick.CodeRoomNotFound:          http.StatusNotFound,
	NotFound:                        http.StatusNotFound,
	MethodNotAllowed:                http.StatusMethodNotAllowed,
	stick.CodeRoomClosed:            http.StatusConflict,
	stick.CodeUnknownMember:         http.StatusConflict,
	stick.CodeTurnMismatch:          http.StatusConflict,
	stick.CodeStaleLease:            http.StatusConflict,
	stick.CodeTakeoverNotAvailable:  http.StatusConflict,
	stick.CodeTakeoverIneligible:    http.StatusConflict,
	stick.CodeStickHeld:             http.StatusConflict,
	stick.CodeVersionConflict:       http.StatusConflict,
	stick.CodeAgentIDInUse:          http.StatusConflict,
	TooLarge:                        http.StatusRequestEntityTooLarge,
	IdempotencyKeyReused:            http.StatusUnprocessableEntity,
	RateLimited:                     http.StatusTooManyRequests,
	stick.CodeSearchUnavailable:     http.StatusServiceUnavailable,
	stick.CodeDBBusy:                http.StatusServiceUnavailable,
	stick.CodeDBUnavailable:         http.StatusServiceUnavailable,
	stick.CodeCanceled:              http.StatusServiceUnavailable,
	ShuttingDown:                    http.StatusServiceUnavailable,
	stick.CodeDBSchemaMismatch:      http.StatusInternalServerError,
	stick.CodeUnsupportedFilesystem: http.StatusInternalServerError,
	stick.CodeDataDir:               http.StatusInternalServerError,
	stick.CodeDBCorrupt:             http.StatusInternalServerError,
	stick.CodeHarness:               http.StatusInternalServerError,
	stick.CodeInternal:              http.StatusInternalServerError,
}

// Status returns the HTTP status of an error code; a code it does not
// know is a client error, 400.
func Status(code stick.Code) int {
	if st, ok := statuses[code]; ok {
		return st
	}
	return http.StatusBadRequest
}

// Codes returns every code Status knows, sorted.
func Codes() []stick.Code {
	return slices.Sorted(maps.Keys(statuses))
}
