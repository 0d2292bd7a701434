package project

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

// MaxFileSize bounds the project file read.
const MaxFileSize = 256 << 10

// File is the project file's content.
type File struct {
	// Schema is the address of the file's JSON Schema, if the file names it.
	Schema string `json:"$schema,omitempty"`
	// Channels are the project's channels.
	Channels []Channel `json:"channels"`
}

// Channel is one channel as the file declares it.
type Channel struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	MaxMessages *int   `json:"maxMessages,omitempty"`
	MaxBytes    *int64 `json:"maxBytes,omitempty"`
	// MaxAge is a duration: a number and a unit (ns, us, ms, s, m, h, d).
	MaxAge string `json:"maxAge,omitempty"`
}

// agePattern is the shape of maxAge, as the schema gives it.
var agePattern = regexp.MustCompile(`^([0-9]+)(ns|us|ms|s|m|h|d)$`)

// Load reads the project file at root: found is false when there is none.
//
// Errors: invalid_argument (the file is not valid: its message names the
// file and the field), internal (it cannot be read).
func Load(root string) (specs []stick.ChannelSpec, found bool, err error) {
	path := filepath.Join(root, stick.ProjectFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, stick.Errorf(stick.CodeInternal, "cannot read %s: %v", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, false, stick.Errorf(stick.CodeInternal, "cannot read %s: %v", path, err)
	}
	specs, err = Parse(data)
	if err != nil {
		if e := stick.AsError(err); e != nil {
			return nil, true, stick.Errorf(e.Code, "%s: %s", path, e.Message).WithHint("fix the file (its schema: %s), or remove it to use the default channels", stick.ProjectFileSchema)
		}
		return nil, true, err
	}
	return specs, true, nil
}

// Parse reads a project file's content and returns its channels, checked.
//
// Errors: invalid_argument.
func Parse(data []byte) ([]stick.ChannelSpec, error) {
	if len(data) > MaxFileSize {
		return nil, invalid("the file is larger than %d bytes", MaxFileSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, invalid("it is not a valid project file: %s", jsonProblem(err))
	}
	if dec.More() {
		return nil, invalid("it holds more than one JSON value")
	}
	specs := make([]stick.ChannelSpec, len(f.Channels))
	for i, c := range f.Channels {
		field := "channels[" + strconv.Itoa(i) + "]"
		s := stick.ChannelSpec{Name: c.Name, Description: c.Description}
		if c.MaxMessages != nil {
			if *c.MaxMessages < 1 {
				return nil, invalid("%s.maxMessages must be at least 1, got %d", field, *c.MaxMessages)
			}
			s.MaxMessages = *c.MaxMessages
		}
		if c.MaxBytes != nil {
			if *c.MaxBytes < stick.MinChannelBytes {
				return nil, invalid("%s.maxBytes must be at least %d, got %d", field, stick.MinChannelBytes, *c.MaxBytes)
			}
			s.MaxBytes = *c.MaxBytes
		}
		if c.MaxAge != "" {
			d, err := parseAge(c.MaxAge)
			if err != nil {
				return nil, invalid("%s.maxAge %q is not a duration: give a number and a unit (ns, us, ms, s, m, h, d), for example 24h or 7d", field, c.MaxAge)
			}
			s.MaxAge = d
		}
		specs[i] = s
	}
	if err := stick.ValidateChannels(specs); err != nil {
		return nil, err
	}
	return specs, nil
}

// parseAge reads a maxAge.
func parseAge(s string) (time.Duration, error) {
	m := agePattern.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("bad duration")
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad duration")
	}
	unit := map[string]time.Duration{"ns": time.Nanosecond, "us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}[m[2]]
	if n > int64(1<<62)/int64(unit) {
		return 0, fmt.Errorf("too long")
	}
	return time.Duration(n) * unit, nil
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("bad JSON at byte %d (%v)", se.Offset, se)
	case errors.As(err, &te):
		return fmt.Sprintf("%s must be a %s, not a %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return msg
}

func jsonKind(k string) string {
	switch k {
	case "slice":
		return "list"
	case "struct":
		return "object"
	case "int", "int64":
		return "number"
	}
	return k
}

func invalid(format string, args ...any) *stick.Error {
	return stick.Errorf(stick.CodeInvalidArgument, format, args...)
}

// Declare declares in the room a member joined the channels the project
// file at root holds, if there is one (see stick.Service.DeclareChannels).
// root "" (a named room) declares nothing.
//
// Errors: those of Load and of DeclareChannels.
func Declare(ctx context.Context, svc *stick.Service, c stick.Caller, roomID, root string) error {
	if root == "" {
		return nil
	}
	specs, found, err := Load(root)
	if err != nil || !found {
		return err
	}
	return svc.DeclareChannels(ctx, c, roomID, specs)
}
