package stick_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// Two agents take turns in one workspace: codex claims the idle room, works,
// and releases with a handoff; claude, next in sequence, claims and receives it.
func Example() {
	data, _ := os.MkdirTemp("", "stick-example-data")
	repo, _ := os.MkdirTemp("", "stick-example-repo")
	defer os.RemoveAll(data)
	defer os.RemoveAll(repo)

	st, err := store.OpenDir(data, store.Options{}) // store.OpenDefault() in real use
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	self, _ := procid.Self()
	codex := stick.Caller{AgentID: "codex:9b22", Kind: stick.KindProcess, Process: self}
	claude := stick.Caller{AgentID: "claude-code:a3f1", Kind: stick.KindProcess, Process: self}

	j, err := svc.JoinPath(ctx, codex, stick.JoinRequest{Path: repo})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := svc.JoinPath(ctx, claude, stick.JoinRequest{Path: repo}); err != nil {
		log.Fatal(err)
	}

	w, err := svc.WaitForTurn(ctx, codex, stick.WaitRequest{RoomID: j.RoomID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("codex:", w.Status, w.Reason, "turn", w.TurnID)

	rel, err := svc.Release(ctx, codex, w.Lease(), stick.Handoff{
		Status:     "parser done; error paths untested",
		NextAction: "add tests for malformed input",
		Artifacts:  []stick.Artifact{{Path: "parse.go", Lines: []int{40, 95}, Role: stick.RoleEdit}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("released, reserved for", rel.ReservedFor)

	w, err = svc.WaitForTurn(ctx, claude, stick.WaitRequest{RoomID: j.RoomID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("claude:", w.Status, w.Reason, "turn", w.TurnID, "from", w.FromAgentID)
	fmt.Println("next action:", w.Handoff.NextAction)
	fmt.Println("look at:", w.Handoff.Artifacts[0].Path, w.Handoff.Artifacts[0].Lines)
	// Output:
	// codex: your_turn open_claim turn 1
	// released, reserved for claude-code:a3f1
	// claude: your_turn sequence turn 2 from codex:9b22
	// next action: add tests for malformed input
	// look at: parse.go [40 95]
}
