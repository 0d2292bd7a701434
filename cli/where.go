package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/workspace"
)

// whereArgs accepts a path only with --explain: plain 'stick where' names
// the database, which no path changes.
func whereArgs(explain *bool) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if *explain {
			return cobra.MaximumNArgs(1)(cmd, args)
		}
		return cobra.NoArgs(cmd, args)
	}
}

// whereExplained is what 'stick where --explain --json' prints.
type whereExplained struct {
	Database string `json:"database"`
	Path     string `json:"path"`
	workspace.Choice
	// RoomID and RoomPath name the open room of Path, if there is one.
	RoomID   string `json:"room_id,omitempty"`
	RoomPath string `json:"room_path,omitempty"`
}

// explainWhere prints the database and how the workspace root of path is
// chosen: by git, a marker file or the path itself, what was passed over,
// whether joining may create a room there, and the room the path is in.
// It reads the database without writing, and without creating it.
func explainWhere(ctx context.Context, w io.Writer, db, path string, asJSON bool) error {
	res, err := stick.ResolvePath(path)
	if err != nil {
		return err
	}
	out := whereExplained{Database: db, Path: res.Path, Choice: res.Choice}
	err = readRoom(ctx, "", path, func(_ *session, st stick.RoomStatus) error {
		out.RoomID, out.RoomPath = st.RoomID, st.CanonicalPath
		return nil
	})
	if err != nil {
		return err
	}
	p := newPrinter(w, asJSON)
	if asJSON {
		return p.JSON(out)
	}
	fmt.Fprintf(p.w, "database  %s\npath      %s\nroot      %s\n", db, res.Path, res.Root)
	fmt.Fprintf(p.w, "          %s\n", strings.ReplaceAll(res.Explain(), "\n", "\n          "))
	switch {
	case out.RoomID != "":
		fmt.Fprintf(p.w, "room      %s at %s\n", p.Bold(render.Line(out.RoomID)), render.Line(out.RoomPath))
	case res.Refused != "":
		fmt.Fprintf(p.w, "room      none; run inside a git repository, add a marker file, or name a project directory\n")
	default:
		fmt.Fprintf(p.w, "room      none yet; 'stick join' creates one at %s\n", res.Root)
	}
	return nil
}
