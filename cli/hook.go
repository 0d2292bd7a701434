package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/atomicfile"
	"github.com/stickhq/stick/internal/ownerfs"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// stopInput is what Claude Code writes on a Stop hook's stdin: the fields
// the guard reads. StopHookActive is nil when Claude Code leaves it out.
type stopInput struct {
	SessionID      string `json:"session_id"`
	HookEventName  string `json:"hook_event_name"`
	StopHookActive *bool  `json:"stop_hook_active"`
}

// stopBlock is the answer that keeps Claude Code from stopping: it shows
// reason to the model, which goes on working.
type stopBlock struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// maxHookInput bounds what the guard reads from stdin.
const maxHookInput = 1 << 20

// guardInstances is how many live instances of one harness's 'stick mcp'
// (see identity.InstanceID) the guard looks for.
const guardInstances = 4

func newHook() *cobra.Command {
	hook := &cobra.Command{
		Use:    "hook",
		Short:  "Hooks a harness runs (installed by 'stick install')",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	hook.AddCommand(&cobra.Command{
		Use:   "stop",
		Short: "Claude Code's Stop hook: keep a session from ending while it holds the stick",
		Long: `Claude Code runs this when its model is about to end its turn, with the hook's
JSON on stdin. When the session still holds the stick, or the stick was passed
to it and it has not claimed it, the hook blocks the stop once, telling the
model to release the stick with a handoff or pass it. It never blocks twice in
a row, and whatever it cannot read (the input, the database) lets the stop go
through.`,
		Example: `  echo '{"session_id":"abc","hook_event_name":"Stop","stop_hook_active":false}' | stick hook stop`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reason, err := stopGuard(cmd.Context(), cmd.InOrStdin())
			if err != nil {
				// Fail open: the stop goes through. Claude Code shows the
				// stderr of a hook that exits 0 only in its debug log.
				fmt.Fprintf(cmd.ErrOrStderr(), "stick hook stop: %v; not blocking\n", err)
				return nil
			}
			if reason == "" {
				return nil
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(stopBlock{Decision: "block", Reason: reason})
		},
	})
	return hook
}

// stopGuard reads Claude Code's Stop input from in and returns why the
// stop is blocked, "" when it is not.
func stopGuard(ctx context.Context, in io.Reader) (string, error) {
	data, err := io.ReadAll(io.LimitReader(in, maxHookInput))
	if err != nil {
		return "", fmt.Errorf("cannot read the hook's input: %v", err)
	}
	var input stopInput
	if err := json.Unmarshal(data, &input); err != nil {
		return "", fmt.Errorf("the hook's input is not JSON: %v", err)
	}
	harness, err := identity.HarnessProcess(identity.Facts{Getenv: getenv})
	if err != nil {
		return "", fmt.Errorf("cannot find the harness process: %v", err)
	}
	marker, err := guardMarker(input.SessionID, harness.Identity)
	if err != nil {
		return "", err
	}
	// Never twice in a row: Claude Code says it is already going on
	// because of a Stop hook; when it leaves that out, the marker of the
	// last block says so.
	again := false
	if input.StopHookActive != nil {
		again = *input.StopHookActive
	} else if _, err := os.Lstat(marker); err == nil {
		again = true
	}
	if again {
		os.Remove(marker)
		return "", nil
	}
	reason, err := heldBy(ctx, guardCandidates(harness.Identity, input.SessionID))
	if err != nil || reason == "" {
		os.Remove(marker)
		return "", err
	}
	if err := atomicfile.WritePrivate(marker, []byte(strconv.Itoa(harness.PID)+"\n")); err != nil {
		return "", fmt.Errorf("cannot write the guard's marker: %v", err)
	}
	return reason, nil
}

// guardCandidates are the agent ids this Claude Code session can be a
// member as: the ids its 'stick mcp' instances and the commands it runs
// derive from its process, with the session id of the environment, of the
// hook's input, or none.
func guardCandidates(harness procid.Identity, session string) map[string]bool {
	out := map[string]bool{}
	for _, s := range []string{identity.SessionID(getenv), session, ""} {
		for n := 1; n <= guardInstances; n++ {
			out[identity.InstanceID("claude-code", harness, s, n)] = true
		}
	}
	return out
}

// heldBy says, in a short reason for the model, where one of ids holds the
// stick or has it reserved; "" when none does. It only reads.
func heldBy(ctx context.Context, ids map[string]bool) (string, error) {
	r, err := wiring().OpenReader()
	if stick.ErrorCode(err) == stick.CodeRoomNotFound {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer r.Close()
	svc, err := newService(r)
	if err != nil {
		return "", err
	}
	rooms, err := svc.ListRooms(ctx, "")
	if err != nil {
		return "", err
	}
	for _, room := range rooms {
		if room.State == stick.StateClosed {
			continue
		}
		where := place(room.CanonicalPath, room.RoomName)
		switch {
		case room.Owner != "" && ids[room.Owner]:
			return fmt.Sprintf("You still hold the stick in %s (turn %d). Before you stop, release it with a handoff (release_stick) or pass it to the member who should go on (pass_stick), so the others are not left waiting.", where, room.TurnID), nil
		case room.ReservedFor != "" && ids[room.ReservedFor]:
			return fmt.Sprintf("The stick was passed to you in %s and you have not claimed it. Before you stop, claim it (wait_for_turn) and release it with a handoff (release_stick), or pass it on (pass_stick).", where), nil
		}
	}
	return "", nil
}

// guardMarker is the owner-only file that records a block of the session,
// in the data directory's hooks folder.
func guardMarker(session string, harness procid.Identity) (string, error) {
	dir, err := store.DataDir()
	if err != nil {
		return "", fmt.Errorf("cannot resolve the data directory: %v", err)
	}
	if err := ownerfs.CheckDir(dir); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no data directory %s", dir)
	} else if err != nil {
		return "", err
	}
	hooks := filepath.Join(dir, "hooks")
	if err := ownerfs.Subdir(hooks); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(session + "\x00" + harness.BootID + "\x00" + strconv.Itoa(harness.PID) + "\x00" + strconv.FormatInt(harness.StartedAt.UnixMilli(), 10)))
	return filepath.Join(hooks, "stop-"+hex.EncodeToString(sum[:8])), nil
}
