package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// testFloors are floors as a run measures them: claim and release
// transactions of 100 µs each, a pipe round trip of 50 µs, an HTTP round
// trip of 80 µs, an MCP call of 250 µs and a bare start of 2 ms.
func testFloors() []FloorResult {
	f := func(name string, d time.Duration) FloorResult {
		return FloorResult{Floor: name, Count: 100, Unit: "ops", P50: d, P99: 2 * d, Mean: d, Throughput: float64(time.Second / d)}
	}
	return []FloorResult{f("sqlite-claim-tx", 100*time.Microsecond), f("sqlite-release-tx", 100*time.Microsecond),
		{Floor: "sqlite3-c", Unavailable: "no sqlite3 tool on PATH"},
		f("pipe", 50*time.Microsecond), f("http-loopback", 80*time.Microsecond), f("mcp-stdio", 250*time.Microsecond), f("bare-start", 2*time.Millisecond)}
}

// judged is r after RunOne (absolute target metAbs) and the ratio target
// of its scenario.
func judged(r Result, metAbs bool, floors []FloorResult, prior []Result) Result {
	r.Count, r.TargetMet = max(r.Count, 100), metAbs
	r.Met = metAbs && len(r.Problems) == 0
	ratioTargets()[r.Scenario].judge(&r, floors, prior)
	return r
}

// TestRatioTargets: each ratio target's arithmetic at its limit (met),
// just past it (missed), whatever the absolute target says.
func TestRatioTargets(t *testing.T) {
	lib := Result{Scenario: "handoff-library", Count: 100, P50: time.Millisecond}
	for _, c := range []struct {
		name     string
		r        Result
		base     time.Duration
		ratio    float64
		wantMet  bool
		metAbs   bool
		priorLib bool
	}{
		// Time per cycle 500 µs = 2.5 × (100 + 100 µs).
		{"cycle at the limit", Result{Scenario: "cycle", Throughput: 2000}, 200 * time.Microsecond, 2.5, true, false, false},
		{"cycle over it", Result{Scenario: "cycle", Throughput: 1900}, 200 * time.Microsecond, 2.63, false, true, false},
		// 2,000 grants/s = 0.40 × (2 / 200 µs) / 2.
		{"contention at the limit", Result{Scenario: "contention", Throughput: 2000}, 200 * time.Microsecond, 0.40, true, false, false},
		{"contention under it", Result{Scenario: "contention", Throughput: 1900}, 200 * time.Microsecond, 0.38, false, true, false},
		// 5 × (50 + 100 + 100 µs) = 1.25 ms.
		{"library handoff at the limit", Result{Scenario: "handoff-library", P50: 1250 * time.Microsecond}, 250 * time.Microsecond, 5, true, false, false},
		{"library handoff over it", Result{Scenario: "handoff-library", P50: 1300 * time.Microsecond}, 250 * time.Microsecond, 5.2, false, true, false},
		// 5 × (80 + 100 + 100 µs) = 1.4 ms.
		{"REST handoff at the limit", Result{Scenario: "handoff-rest", P50: 1400 * time.Microsecond}, 280 * time.Microsecond, 5, true, false, false},
		{"REST handoff over it", Result{Scenario: "handoff-rest", P50: 1500 * time.Microsecond}, 280 * time.Microsecond, 5.36, false, true, false},
		// 2 × (1 ms + 2 × 250 µs) = 3 ms.
		{"MCP handoff at the limit", Result{Scenario: "handoff-mcp", P50: 3 * time.Millisecond}, 1500 * time.Microsecond, 2, true, false, true},
		{"MCP handoff over it", Result{Scenario: "handoff-mcp", P50: 3100 * time.Microsecond}, 1500 * time.Microsecond, 2.07, false, true, true},
		// 3 × 2 ms.
		{"start-up at the limit", Result{Scenario: "start-up", P50: 6 * time.Millisecond}, 2 * time.Millisecond, 3, true, false, false},
		{"start-up over it", Result{Scenario: "start-up", P50: 7 * time.Millisecond}, 2 * time.Millisecond, 3.5, false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var prior []Result
			if c.priorLib {
				prior = []Result{lib}
			}
			r := judged(c.r, c.metAbs, testFloors(), prior)
			if r.Floor == nil || r.Floor.Base != c.base || r.Floor.Unavailable != "" {
				t.Fatalf("floor %+v, want base %v", r.Floor, c.base)
			}
			if r.RatioMet == nil || *r.RatioMet != c.wantMet || r.Met != c.wantMet || r.TargetMet != c.metAbs {
				t.Errorf("ratio met %v, met %v, target met %v; want ratio and verdict %v, absolute %v", r.RatioMet, r.Met, r.TargetMet, c.wantMet, c.metAbs)
			}
			if d := r.Ratio - c.ratio; d > 0.005 || d < -0.005 {
				t.Errorf("ratio %.4f, want %.2f", r.Ratio, c.ratio)
			}
		})
	}
}

// TestRatioFloorMissing: without its floor (or, for an MCP handoff, the
// library handoff's result) a scenario has no ratio and its absolute
// target decides, with a note saying so.
func TestRatioFloorMissing(t *testing.T) {
	floors := testFloors()
	floors[0] = FloorResult{Floor: "sqlite-claim-tx", Unavailable: "failed: disk full"}
	for _, metAbs := range []bool{true, false} {
		r := judged(Result{Scenario: "cycle", Throughput: 100000}, metAbs, floors, nil)
		if r.Ratio != 0 || r.RatioMet != nil || r.Met != metAbs || r.Floor == nil || !strings.Contains(r.Floor.Unavailable, "disk full") {
			t.Errorf("absolute %v: %+v", metAbs, r)
		}
		if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "absolute target decides") }) {
			t.Errorf("notes %q", r.Notes)
		}
	}
	r := judged(Result{Scenario: "handoff-mcp", P50: time.Millisecond}, false, testFloors(), nil)
	if r.RatioMet != nil || r.Met || !strings.Contains(r.Floor.Unavailable, "handoff-library") {
		t.Errorf("MCP handoff without the library handoff: %+v, floor %+v", r, r.Floor)
	}
}

// TestRatioProblemMisses: a ratio within its target does not save a
// result that found a problem.
func TestRatioProblemMisses(t *testing.T) {
	r := judged(Result{Scenario: "cycle", Throughput: 100000, Problems: []string{"turn 3 granted twice"}}, true, testFloors(), nil)
	if r.RatioMet == nil || !*r.RatioMet || r.Met {
		t.Errorf("ratio met %v, met %v; want the ratio met and the verdict missed", r.RatioMet, r.Met)
	}
}

// TestPlan: a run measures the floors its scenarios need, first; the MCP
// handoff brings the library handoff its ratio is built on.
func TestPlan(t *testing.T) {
	for _, c := range []struct {
		names          []string
		steps, floors  string
		addedForMCPLib bool
	}{
		{[]string{"handoff-mcp"}, "handoff-library handoff-mcp", "sqlite-tx pipe mcp-stdio", true},
		{[]string{"handoff-mcp", "handoff-library"}, "handoff-library handoff-mcp", "sqlite-tx pipe mcp-stdio", true},
		{[]string{"handoff-library", "handoff-mcp"}, "handoff-library handoff-mcp", "sqlite-tx pipe mcp-stdio", false},
		{[]string{"cycle", "contention"}, "cycle contention", "sqlite-tx", false},
		{[]string{"start-up", "search"}, "start-up search", "bare-start linked-start", false},
		{[]string{"search"}, "search", "", false},
		{[]string{"handoff-rest", "hub-notes"}, "handoff-rest hub-notes", "sqlite-tx http-loopback", false},
		{[]string{"hub-idle", "serve-start-up"}, "hub-idle serve-start-up", "", false},
		{[]string{"pipe", "sqlite3-c"}, "", "sqlite3-c pipe", false},
		{nil, strings.Join(scenarioNamesOf(Scenarios()), " "), "sqlite-tx sqlite3-c pipe http-loopback mcp-stdio bare-start linked-start", false},
	} {
		steps, floors, err := plan(c.names, false)
		if err != nil {
			t.Fatal(err)
		}
		var s, f []string
		for _, st := range steps {
			s = append(s, st.Name)
		}
		for _, fl := range floors {
			f = append(f, fl.Name)
		}
		if strings.Join(s, " ") != c.steps || strings.Join(f, " ") != c.floors {
			t.Errorf("plan(%q) = %q, floors %q; want %q, floors %q", c.names, s, f, c.steps, c.floors)
		}
		if added := len(steps) > 0 && steps[0].addedFor == "handoff-mcp"; added != c.addedForMCPLib {
			t.Errorf("plan(%q): library handoff added for the MCP one: %v", c.names, added)
		}
	}
}

func scenarioNamesOf(all []Scenario) []string {
	var names []string
	for _, sc := range all {
		names = append(names, sc.Name)
	}
	return names
}

// TestRunReport runs a small real run, the cycle and its floor, and
// checks what stickbench prints of it: the JSON object's shape and the
// table's machine line, floor table and ratio columns.
func TestRunReport(t *testing.T) {
	rep, err := Run(context.Background(), []string{"cycle"}, Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Machine map[string]any   `json:"machine"`
		Floors  []map[string]any `json:"floors"`
		Scens   []map[string]any `json:"scenarios"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"cpu", "logical_cpus", "os", "go"} {
		if _, ok := got.Machine[k]; !ok {
			t.Errorf("machine lacks %q: %s", k, b)
		}
	}
	if len(got.Floors) != 2 || got.Floors[0]["floor"] != "sqlite-claim-tx" || got.Floors[1]["floor"] != "sqlite-release-tx" {
		t.Fatalf("floors: %s", b)
	}
	for _, k := range []string{"count", "unit", "p50_ms", "p99_ms", "mean_ms", "throughput_per_s", "cpu_percent", "what"} {
		if _, ok := got.Floors[0][k]; !ok {
			t.Errorf("floor lacks %q: %v", k, got.Floors[0])
		}
	}
	if len(got.Scens) != 1 {
		t.Fatalf("scenarios: %s", b)
	}
	sc := got.Scens[0]
	for _, k := range []string{"scenario", "p50_ms", "throughput_per_s", "target", "target_met", "floor", "ratio", "ratio_target", "ratio_met", "met"} {
		if _, ok := sc[k]; !ok {
			t.Errorf("scenario lacks %q: %v", k, sc)
		}
	}
	floor, _ := sc["floor"].(map[string]any)
	if base, _ := floor["base_ms"].(float64); base <= 0 || sc["ratio_target"] != "<= 2.5×" || sc["met"] != sc["ratio_met"] {
		t.Errorf("scenario's floor and ratio: %v", sc)
	}
	if names, _ := floor["names"].([]any); len(names) != 2 || names[0] != "sqlite-claim-tx" {
		t.Errorf("floor names: %v", floor)
	}

	var out bytes.Buffer
	if err := WriteTable(&out, rep); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	t.Log("\n" + text)
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "machine: ") || !strings.Contains(lines[0], rep.Machine.OS) {
		t.Errorf("first line %q", lines[0])
	}
	var floorHead, scenHead, cycleRow string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "floor "):
			floorHead = l
		case strings.HasPrefix(l, "scenario "):
			scenHead = l
		case strings.HasPrefix(l, "cycle "):
			cycleRow = l
		}
	}
	for _, col := range []string{"count", "p50", "p99", "mean", "throughput", "CPU", "what"} {
		if !strings.Contains(floorHead, col) {
			t.Errorf("floor header %q lacks %q", floorHead, col)
		}
	}
	if !regexpMatch(`target +floor +ratio +ratio target +verdict$`, scenHead) {
		t.Errorf("scenario header %q", scenHead)
	}
	if !strings.Contains(cycleRow, "×") || !strings.Contains(cycleRow, "<= 2.5×") || !strings.Contains(cycleRow, ">= 5,000/s (") {
		t.Errorf("cycle row %q", cycleRow)
	}
}

// TestTableUnavailableFloor: a floor the machine lacks says why in the
// floor table, and a scenario without a ratio shows dashes.
func TestTableUnavailableFloor(t *testing.T) {
	rep := Report{Machine: ThisMachine(), Floors: testFloors(),
		Scenarios: []Result{{Scenario: "search", Count: 100, Unit: "searches", P50: time.Millisecond, P99: 2 * time.Millisecond, Target: "p99 <= 20 ms", TargetMet: true, Met: true}}}
	var out bytes.Buffer
	if err := WriteTable(&out, rep); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "unavailable: no sqlite3 tool on PATH") {
		t.Errorf("no unavailable floor in\n%s", text)
	}
	if !regexpMatch(`search .*p99 <= 20 ms +- +- +- +ok`, text) {
		t.Errorf("search row without a ratio in\n%s", text)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// TestStartUpBesideLinkedStart: start-up is judged against the bare start,
// and a note gives its ratio to this program's own start doing nothing
// (stick's dependencies initialised), when that floor was measured.
func TestStartUpBesideLinkedStart(t *testing.T) {
	floors := append(testFloors(), FloorResult{Floor: "linked-start", Count: 30, Unit: "starts", P50: 4 * time.Millisecond})
	r := judged(Result{Scenario: "start-up", P50: 7 * time.Millisecond}, false, floors, nil)
	if r.Ratio != 3.5 || r.Met {
		t.Errorf("ratio %.2f, met %v; want 3.50 against bare-start, missed", r.Ratio, r.Met)
	}
	if want := "1.75× linked-start p50 (4.00 ms)"; !slices.Contains(r.Notes, want) {
		t.Errorf("notes %q; want %q", r.Notes, want)
	}
	r = judged(Result{Scenario: "start-up", P50: 7 * time.Millisecond}, false, testFloors(), nil)
	for _, n := range r.Notes {
		if strings.Contains(n, "linked-start") {
			t.Errorf("a note about a floor not measured: %q", n)
		}
	}
}
