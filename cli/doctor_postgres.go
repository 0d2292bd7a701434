package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
)

// slowWriter is how long a write may hold the PostgreSQL store's write
// lock before doctor warns: a write holds it for milliseconds.
const slowWriter = time.Second

// postgresChecks checks the PostgreSQL database the commands use (db is
// its URL, password redacted): that it can be reached and has this stick's
// schema, the stick processes connected, a write holding the write lock
// too long, and its rooms.
func postgresChecks(ctx context.Context, db string) []check {
	st, err := wiring().Open()
	if err != nil {
		c := failedCheck("database", err)
		c.Message = db + ": " + c.Message
		return []check{c}
	}
	defer st.Close()
	pg, ok := st.(*postgres.Store)
	if !ok {
		return []check{{"database", checkFail, db + ": not a PostgreSQL store", "report this: --database opened another kind of store"}}
	}
	a, err := pg.About(ctx)
	if err != nil {
		return []check{failedCheck("database", err)}
	}
	out := []check{
		{"database", checkOK, fmt.Sprintf("%s (%s): PostgreSQL %s, schema %d", db, a.Where, a.ServerVersion, a.Schema), ""},
		{"wake-ups", checkOK, fmt.Sprintf("LISTEN/NOTIFY; %d stick process(es) connected, this one included", a.Processes), ""},
	}
	if a.WriterFor >= slowWriter {
		who := a.WriterApp
		if a.WriterClient != "" {
			who += " at " + a.WriterClient
		}
		out = append(out, check{"database", checkWarn,
			fmt.Sprintf("a write (server process %d, %s) has held the write lock for %s; every other write waits for it", a.WriterPID, who, a.WriterFor.Round(time.Millisecond)),
			fmt.Sprintf("if it does not end, end it on the server: SELECT pg_terminate_backend(%d); its write is rolled back", a.WriterPID)})
	}
	return append(out, roomChecks(ctx, stick.Store(pg))...)
}
