package bench

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Floor is a measurement of what the machine and stick's dependencies do
// with nothing of stick's logic: the floor under a scenario. A run
// measures the floors its scenarios' ratio targets are built on before
// the scenarios, and each such scenario reports its figure as a ratio to
// its floor, which travels between machines where absolute times do not.
//
// Adding a floor is one entry in Floors: a name, what it measures, the
// figures it gives and a function that measures them.
type Floor struct {
	// Name is what the command line and the scenario list call it.
	Name string
	// What says what is measured.
	What string
	// Gives names the figures (FloorResult.Floor) it measures: its own
	// name unless it gives several.
	Gives   []string
	measure func(ctx context.Context, e *env) ([]FloorResult, error)
}

// Floors lists every floor in the order the floor table shows them.
func Floors() []Floor {
	return []Floor{
		{Name: "sqlite-tx", What: "claim- and release-shaped transactions, alternating, through stick's SQLite driver and pragmas",
			Gives: []string{"sqlite-claim-tx", "sqlite-release-tx"}, measure: sqliteTx},
		{Name: "sqlite3-c", What: "the same through the sqlite3 tool (SQLite's C library), to compare",
			measure: sqlite3C},
		{Name: "pipe", What: "round trip of a short line between two processes over pipes",
			measure: pipeRoundTrip},
		{Name: "http-loopback", What: "round trip of a short JSON request to an HTTP server in another process, keep-alive, loopback, net/http at both ends",
			measure: httpLoopback},
		{Name: "mcp-stdio", What: "tools/call of an empty tool over stdio, MCP Go SDK at both ends",
			measure: mcpStdio},
		{Name: "bare-start", What: "spawn to exit of a Go program that does nothing",
			measure: bareStart},
		{Name: "linked-start", What: "spawn to exit of this program, which links stick and its dependencies, doing nothing after their initialisation",
			measure: linkedStart},
	}
}

// gives returns the figures a floor measures.
func (f Floor) gives() []string {
	if len(f.Gives) == 0 {
		return []string{f.Name}
	}
	return f.Gives
}

// FloorResult is one figure a floor measured, or why the machine could
// not measure it.
type FloorResult struct {
	// Floor names the figure, for example "sqlite-claim-tx".
	Floor string `json:"floor"`
	// What says what was measured.
	What string `json:"what"`
	// Count is how many operations were measured, in Unit.
	Count int    `json:"count"`
	Unit  string `json:"unit"`
	// P50, P99 and Mean are the time of one operation; P50 and P99 are
	// zero for a floor that times only a batch.
	P50  time.Duration `json:"-"`
	P99  time.Duration `json:"-"`
	Mean time.Duration `json:"-"`
	// Throughput is operations per second of wall time.
	Throughput float64 `json:"throughput_per_s"`
	// CPU is the processor time of all processes, in percent of one core
	// over the measured wall time.
	CPU float64 `json:"cpu_percent"`
	// Unavailable says why the floor was not measured on this machine
	// (a tool missing, a failure); empty when it was.
	Unavailable string   `json:"unavailable,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}

// MarshalJSON writes times as milliseconds.
func (f FloorResult) MarshalJSON() ([]byte, error) {
	type plain FloorResult
	return marshalPlain(struct {
		plain
		P50  float64 `json:"p50_ms"`
		P99  float64 `json:"p99_ms"`
		Mean float64 `json:"mean_ms"`
	}{plain(f), ms(f.P50), ms(f.P99), ms(f.Mean)})
}

// stat returns the named statistic ("p50" or "mean"), zero when the floor
// has none.
func (f FloorResult) stat(name string) time.Duration {
	if f.Unavailable != "" || f.Count == 0 {
		return 0
	}
	if name == "p50" {
		return f.P50
	}
	return f.Mean
}

// fromSamples sets Count, P50, P99, Mean from per-operation samples.
func (f *FloorResult) fromSamples(samples []time.Duration) {
	var r Result
	r.latencies(samples)
	f.Count, f.P50, f.P99 = r.Count, r.P50, r.P99
	var total time.Duration
	for _, s := range samples {
		total += s
	}
	if len(samples) > 0 {
		f.Mean = total / time.Duration(len(samples))
	}
}

// fromMeter sets Throughput and CPU from a meter over count operations.
func (f *FloorResult) fromMeter(m *meter, count int) {
	var r Result
	m.stop(&r, count)
	f.Throughput, f.CPU = r.Throughput, r.CPU
}

// measureFloor measures one floor in a temporary directory. A floor that
// fails is reported unavailable with the failure, so the scenarios still
// run and their absolute targets decide.
func measureFloor(ctx context.Context, fl Floor, o Options) ([]FloorResult, error) {
	if o.Log != nil {
		size := ""
		if o.Quick {
			size = " (quick: smaller)"
		}
		o.Log("floor %s: %s%s", fl.Name, fl.What, size)
	}
	failed := func(err error) []FloorResult {
		var out []FloorResult
		for _, name := range fl.gives() {
			out = append(out, FloorResult{Floor: name, What: fl.What, Unavailable: "failed: " + err.Error()})
		}
		return out
	}
	dir, err := os.MkdirTemp("", "stickbench-floor-"+fl.Name+"-")
	if err != nil {
		return failed(err), nil
	}
	defer os.RemoveAll(dir)
	e, err := newEnv(dir, o)
	if err != nil {
		return failed(err), nil
	}
	rs, err := fl.measure(ctx, e)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("floor %s: interrupted", fl.Name)
	}
	if err != nil {
		return failed(err), nil
	}
	for i := range rs {
		if rs[i].What == "" {
			rs[i].What = fl.What
		}
		if rs[i].Count == 0 && rs[i].Unavailable == "" {
			rs[i].Unavailable = "measured nothing"
		}
	}
	return rs, nil
}

// unavailable is a floor's only result when the machine lacks what it
// needs.
func unavailable(name, format string, args ...any) []FloorResult {
	return []FloorResult{{Floor: name, Unavailable: fmt.Sprintf(format, args...)}}
}

// fixed picks the full or quick size of a floor; --count does not apply
// to floors, whose sizes are set for precision.
func (e *env) fixed(full, quick int) int {
	if e.o.Quick {
		return quick
	}
	return full
}
