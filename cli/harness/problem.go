package harness

import (
	"errors"
	"fmt"
)

// configError is a harness configuration file that stick cannot read or
// change (not valid JSON, a key of the wrong type). Nothing was written.
type configError struct {
	path string
	// doing is what failed, "cannot read" when empty.
	doing string
	err   error
}

func (e *configError) Error() string {
	if e.doing == "" {
		return fmt.Sprintf("cannot read %s: %v", e.path, e.err)
	}
	return fmt.Sprintf("%s %s: %v", e.doing, e.path, e.err)
}

// outputError is a harness command that succeeded but printed what stick
// cannot read, for example after the harness changed its output format.
type outputError struct {
	cmdline string
	err     string
}

func (e *outputError) Error() string {
	return fmt.Sprintf("cannot read the output of '%s': %s", e.cmdline, e.err)
}

// fixFor says what a person does about err before running the operation
// again; "" when there is nothing more specific to say than the error.
func fixFor(harness string, err error) string {
	var ce *configError
	var oe *outputError
	var ee *exitError
	switch {
	case errors.As(err, &ce):
		return fmt.Sprintf("fix the JSON of %s where the error says (or move the file aside)", ce.path)
	case errors.As(err, &oe):
		title := harness
		if h, ok := Lookup(harness); ok {
			title = h.Title
		}
		return fmt.Sprintf("this %s prints what stick does not expect (a newer release?): update stick, or register stick by hand as 'stick mcp --help' shows", title)
	case errors.As(err, &ee):
		return fmt.Sprintf("run '%s' yourself to see the whole error, and fix its cause", ee.cmdline)
	}
	return ""
}
