package demo

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// The story is told in causal order however the agents' lines interleave
// on arrival: each agent's steps in its own order, the first release after
// every join, each grant after the release it follows.
func TestNarrativeFollowsCausalOrder(t *testing.T) {
	h := &stick.Handoff{Status: "s", NextAction: "n"}
	// At is the step's identity in the output: k ms after the start.
	at := func(k int) int64 { return int64(k) * 1000 }
	streams := [][]step{
		{{Agent: roster[0], Kind: stepJoined, Turn: 1, At: at(1)}, {Agent: roster[0], Kind: stepGrant, Turn: 1, At: at(2)}, {Agent: roster[0], Kind: stepReleased, Turn: 1, At: at(5)}},
		{{Agent: roster[1], Kind: stepJoined, At: at(3)}, {Agent: roster[1], Kind: stepGrant, Turn: 2, Handoff: h, At: at(6)}, {Agent: roster[1], Kind: stepReleased, Turn: 2, At: at(7)}},
		{{Agent: roster[2], Kind: stepJoined, At: at(4)}, {Agent: roster[2], Kind: stepGrant, Turn: 3, Handoff: h, At: at(8)}},
	}
	n := 0
	var walk func(pos []int, arrived []step)
	walk = func(pos []int, arrived []step) {
		complete := true
		for i, s := range streams {
			if pos[i] == len(s) {
				continue
			}
			complete = false
			next := append([]int(nil), pos...)
			next[i]++
			walk(next, append(append([]step(nil), arrived...), s[pos[i]]))
		}
		if !complete {
			return
		}
		n++
		var out bytes.Buffer
		d := &driver{log: &out, begun: time.UnixMicro(0), told: map[int64]bool{}, tookOver: map[int64]bool{}, queued: map[string][]step{},
			left: map[string]bool{}, children: make([]*child, len(roster))} // every agent started: a join starts none
		for _, s := range arrived {
			if err := d.tell(context.Background(), s); err != nil {
				t.Fatal(err)
			}
		}
		var told []int
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			k, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(line)[0], "ms"), 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			told = append(told, int(k))
		}
		place := map[int]int{}
		for i, k := range told {
			place[k] = i
		}
		// before[k] must be told before k: the agent's previous step and the step k waits for.
		before := map[int][]int{2: {1}, 5: {2, 1, 3, 4}, 6: {3, 5}, 7: {6}, 8: {4, 7}}
		for k, ds := range before {
			for _, b := range ds {
				if place[b] > place[k] {
					t.Fatalf("arrival order %v was told as %v: step %d before step %d", kinds(arrived), told, k, b)
				}
			}
		}
		if len(told) != 8 {
			t.Fatalf("arrival order %v was told as %v", kinds(arrived), told)
		}
	}
	walk(make([]int, len(streams)), nil)
	if n != 560 {
		t.Fatalf("checked %d interleavings, want 560", n)
	}
}

func kinds(steps []step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, fmt.Sprintf("%s/%s/%d", s.Agent, s.Kind, s.Turn))
	}
	return out
}
