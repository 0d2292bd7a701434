package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// Execute runs the stick command line with args, acting on the store w
// opens, and returns the process exit code: 0 on success, 1 when a command
// failed, 2 on a usage error, 5 on a version_conflict (see exitFor; wait
// and try also use 3 and 4).
func Execute(ctx context.Context, w Wiring, args []string, stdin io.Reader, stdout, stderr io.Writer, version string) int {
	wired.Store(&w)
	root := newRoot(version)
	requireSubcommand(root)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	var ec exitCode
	if errors.As(err, &ec) {
		return int(ec)
	}
	var f *failure
	if errors.As(err, &f) {
		fmt.Fprintf(stderr, "stick: %s\n", f.msg)
		if f.hint != "" {
			fmt.Fprintf(stderr, "hint: %s\n", f.hint)
		}
		return f.code
	}
	if code, ok := interrupted(ctx, err); ok {
		fmt.Fprintln(stderr, "stick: interrupted")
		return code
	}
	var se *stick.Error
	if errors.As(err, &se) {
		printError(stderr, se)
		return exitFor(se)
	}
	var ue usageError
	if !errors.As(err, &ue) && errors.Unwrap(err) != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// Not the command line's fault: an error of the system or the
		// context that reached here without a code of its own.
		se = stick.AsError(err)
		printError(stderr, se)
		return exitFor(se)
	}
	help := "stick --help"
	if cmd != nil && cmd != root {
		help = cmd.CommandPath() + " --help"
	}
	fmt.Fprintf(stderr, "stick: %v\nhint: run '%s' for usage\n", err, help)
	return 2
}

// Interrupted is the cause with which the context given to Execute ends
// when a signal (Ctrl-C, SIGTERM) stops the command: a command it ends
// that way exits 128 plus the signal's number, as shells report a process
// the signal killed, with the one line "stick: interrupted".
type Interrupted struct{ Signal os.Signal }

func (i Interrupted) Error() string { return i.Signal.String() + " signal received" }

// interrupted reports the exit status of a command that failed because a
// signal ended ctx: 130 for SIGINT, 143 for SIGTERM.
func interrupted(ctx context.Context, err error) (int, bool) {
	var in Interrupted
	if ctx.Err() == nil || !errors.As(context.Cause(ctx), &in) {
		return 0, false
	}
	if !errors.Is(err, context.Canceled) && stick.ErrorCode(err) != stick.CodeCanceled {
		return 0, false
	}
	if n, ok := in.Signal.(syscall.Signal); ok {
		return 128 + int(n), true
	}
	return 130, true
}

// usageError marks an error of a flag as the command line's fault, like
// every unwrapped error a command returns; an error that wraps another
// (a file, a driver) and has no code is an internal failure instead.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// exitConflict is the exit status of a version_conflict: someone else
// changed what the command was about to change, and nothing was written.
const exitConflict = 5

// exitUsage is the exit status of a usage error: the command line asked
// for something that cannot be done as written, and nothing changed.
const exitUsage = 2

// exitFor is the exit status of a command that failed with se: exitUsage
// for an argument or flag refused as written (an invalid_argument or
// invalid_handoff that names its field), whether the command line or the
// library found it; exitConflict for a version_conflict, which a script can
// handle by reading again and retrying; 1 otherwise.
func exitFor(se *stick.Error) int {
	switch {
	case se.Code == stick.CodeVersionConflict:
		return exitConflict
	case (se.Code == stick.CodeInvalidArgument || se.Code == stick.CodeInvalidHandoff) && se.Details["field"] != nil:
		return exitUsage
	}
	return 1
}

// printError writes an error of package stick as every command shows one:
// "stick: code: message" and a hint line, in the CLI's words.
func printError(w io.Writer, se *stick.Error) {
	fmt.Fprintf(w, "stick: %s: %s\n", render.Line(string(se.Code)), render.Text(cliWords(se.Message)))
	if se.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", render.Text(cliWords(se.Hint)))
	}
}

// failure is an error of the command line itself rather than of package
// stick (an editor that failed, a file that cannot be written): printed as
// "stick: message" and a hint line, and ending the command with code.
type failure struct {
	code      int
	msg, hint string
}

func (f *failure) Error() string { return f.msg }

// toolWords translates the MCP tool and field names that messages and hints
// of the stick package use into the commands and words of the CLI. Only
// whole words are translated, never part of a path or an agent id.
var toolWords = map[string]string{
	"wait_for_turn_max_wait_ms": "--wait", "owner_lease_ttl_ms": "--lease", "claim_ttl_ms": "--claim",
	"heartbeat_interval_ms": "--heartbeat", "presence_ttl_ms": "--presence", "proxy_grace_ms": "--grace", "list_rooms": "'stick list'",
	"join_path": "'stick join'", "wait_for_turn": "'stick wait'", "release_stick": "'stick release'",
	"pass_stick": "'stick pass'", "takeover_stick": "'stick takeover'", "leave_path": "'stick leave'",
	"close_room": "'stick close'", "set_room_policy": "'stick policy'", "get_room_state": "'stick state'",
	"get_room_events": "'stick events'", "append_note": "'stick note'", "context_path": "path",
	"reply_to": "--reply-to", "message_type": "--type", "client_message_id": "--id",
	"max_items": "--max", "wait_seconds": "--wait", "ack_through": "--ack",
	"read_room_doc": "'stick doc'", "update_room_doc": "'stick doc edit'", "append_room_doc": "'stick doc append'",
	"room_doc_history": "'stick doc history'", "search_events": "'stick search'",
	"list_channels": "'stick channels'", "read_history": "'stick events'", "set_handle": "'stick handle'",
	"get_my_handle": "'stick handle'", "remove_member": "'stick kick'",
	"reclaim_token": "reclaim token (set $" + identity.ReclaimTokenEnv + ")",
}

// toolWord matches a run of lower-case letters and underscores; cliWords
// translates it only when it stands alone: not inside a path, file name or
// identifier.
var toolWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-z_]+`) })

// millis matches a duration in milliseconds as the messages of package
// stick write one, "300000ms"; cliWords shows it in the units of the
// CLI's duration flags.
var millis = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s(])-?[0-9]+ms\b`) })

// cliWords applies toolWords to s, and shows durations in milliseconds in
// human units ("300000ms" as "5m"). Delimiters are checked around each
// word rather than matched, so two words separated by one space both count.
func cliWords(s string) string {
	s = millis().ReplaceAllStringFunc(s, func(m string) string {
		num := strings.TrimLeft(strings.TrimSuffix(m, "ms"), " \t\n\r(")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return m
		}
		return m[:len(m)-len(num)-2] + render.Duration(time.Duration(n)*time.Millisecond)
	})
	var b strings.Builder
	last := 0
	for _, loc := range toolWord().FindAllStringIndex(s, -1) {
		w, ok := toolWords[s[loc[0]:loc[1]]]
		if !ok || !wordEdge(s, loc[0]-1, `(,;"'`) || !wordEdge(s, loc[1], `),;:."'`) {
			continue
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(w)
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// wordEdge reports whether position i of s is outside s, white space, or
// one of the delimiters.
func wordEdge(s string, i int, delims string) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	c := s[i]
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || strings.IndexByte(delims, c) >= 0
}

func newRoot(version string) *cobra.Command {
	root := &cobra.Command{
		Use:   "stick",
		Short: "Take turns in a shared workspace, one holder at a time, with a structured handoff",
		Long: `stick coordinates coding agents and people working in one workspace: exactly one
member of a room holds the stick at a time, and every hand-over carries a handoff
(what was done, what is next, which files and lines to look at).

Agents use it through the MCP server, 'stick mcp', which their harness starts
('stick install' registers it); people through the commands below. New here?
'stick demo' shows three agents taking turns and recovering from a crash.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("stick {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	agent := root.PersistentFlags().String("agent", "", "act as this agent id (default: see 'stick whoami --explain')")
	database := root.PersistentFlags().String("database", "", "the PostgreSQL database to use, postgres://USER@HOST:PORT/NAME (or $"+storeurl.Env+"; default: this host's SQLite database, see 'stick where')")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return useDatabase(*database) }
	root.AddCommand(
		newWait(agent), newTry(agent), newHold(agent), newRelease(agent), newPass(agent), newTakeover(agent), newHeartbeat(agent),
		newWhoami(agent), newStatus(agent), newList(agent), newJoin(agent), newState(agent), newEvents(agent), newSync(agent),
		newPolicy(agent), newLeave(agent), newClose(agent), newRooms(agent), newStandby(agent), newKick(agent), newHandle(agent),
		newNote(agent), newChannels(agent), newChat(agent), newDoc(agent), newSearch(agent), newExport(agent),
		newDemo(), newInstall(), newUninstall(), newInstallSkill(), newUninstallSkill(), newPrompt(), newDoctor(), newMCP(version), newMan(version),
		newServe(version), newToken(),
		newVersion(version), newWhere(), newGuardian(), newHook())
	groupCommands(root)
	return root
}

// commandGroups sorts the commands of 'stick --help' by what a person wants
// to do; the rest (version, where, completion, help) come last.
var commandGroups = []struct {
	id, title string
	names     []string
}{
	{"turn", "Take turns:", []string{"wait", "try", "hold", "release", "pass", "takeover", "heartbeat"}},
	{"room", "Watch and manage a room:", []string{"whoami", "status", "list", "join", "state", "events", "sync", "policy", "leave", "close", "rooms", "standby", "kick", "handle"}},
	{"memory", "Share what you know:", []string{"note", "channels", "chat", "doc", "search", "export"}},
	{"setup", "Set up:", []string{"demo", "install", "uninstall", "install-skill", "uninstall-skill", "prompt", "doctor", "mcp", "man"}},
	{"hub", "Serve other machines:", []string{"serve", "token"}},
}

func groupCommands(root *cobra.Command) {
	cobra.EnableCommandSorting = false // the order of AddCommand, which follows the groups
	group := map[string]string{}
	for _, g := range commandGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, n := range g.names {
			group[n] = g.id
		}
	}
	for _, c := range root.Commands() {
		c.GroupID = group[c.Name()]
	}
}

func newWhere() *cobra.Command {
	var explain, asJSON bool
	cmd := &cobra.Command{
		Use:   "where [--explain [path]]",
		Short: "Print the path of the database; with --explain, how the workspace root of a path is chosen",
		Example: "  stick where\n  TALKING_STICK_DATA_DIR=/tmp/stick stick where\n" +
			"  stick where --explain            # git top level, marker file or the path itself, and the room",
		Args: whereArgs(&explain),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := store.DataDir()
			if err != nil {
				return stick.Errorf(stick.CodeDataDir, "cannot resolve the data directory: %v", err).
					WithHint("set %s to a local directory", store.DataDirEnv)
			}
			db := dir + string(os.PathSeparator) + store.DBFileName
			if explain {
				return explainWhere(cmd.Context(), cmd.OutOrStdout(), db, pathArg(args), asJSON)
			}
			fmt.Fprintln(cmd.OutOrStdout(), db)
			return nil
		},
	}
	cmd.Flags().BoolVar(&explain, "explain", false, "also say how the workspace root of the path (default: the current directory) is chosen, and its room")
	cmd.Flags().BoolVar(&asJSON, "json", false, "with --explain, print JSON instead of text")
	return cmd
}
