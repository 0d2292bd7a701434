package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Result is what one scenario measured. Latencies are zero for scenarios
// that measure only a rate or a cost.
type Result struct {
	// Scenario is the scenario's name, for example "handoff-library".
	Scenario string `json:"scenario"`
	// Count is how many operations were measured, in Unit.
	Count int    `json:"count"`
	Unit  string `json:"unit"`
	// P50, P99 and Max are latency percentiles of one operation.
	P50 time.Duration `json:"-"`
	P99 time.Duration `json:"-"`
	Max time.Duration `json:"-"`
	// Throughput is operations per second of wall time.
	Throughput float64 `json:"throughput_per_s"`
	// CPU is the processor time all processes of the scenario used, in
	// percent of one core over the measured wall time.
	CPU float64 `json:"cpu_percent"`
	// Target states what the scenario must show; Met whether it did. A
	// result that measured nothing, or found a problem, never meets it.
	Target string `json:"target"`
	Met    bool   `json:"met"`
	// Problems are what the scenario found wrong besides speed: turns
	// granted twice or out of order, fencing violations, db_busy, errors
	// no caller should see.
	Problems []string `json:"problems,omitempty"`
	// Notes are extra facts: memory, violations, errors seen.
	Notes []string `json:"notes,omitempty"`
}

// MarshalJSON writes latencies as milliseconds.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // targets say "<=" and ">="
	err := enc.Encode(struct {
		plain
		P50 float64 `json:"p50_ms"`
		P99 float64 `json:"p99_ms"`
		Max float64 `json:"max_ms"`
	}{plain(r), ms(r.P50), ms(r.P99), ms(r.Max)})
	return bytes.TrimSpace(b.Bytes()), err
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// note appends a formatted note.
func (r *Result) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// latencies sets Count, P50, P99 and Max from samples.
func (r *Result) latencies(samples []time.Duration) {
	r.Count = len(samples)
	if len(samples) == 0 {
		return
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	r.P50 = quantile(s, 0.50)
	r.P99 = quantile(s, 0.99)
	r.Max = s[len(s)-1]
}

// quantile returns the q-quantile of sorted samples: the nearest-rank
// value, the smallest one with at least q of the samples at or below it.
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// problem records something the scenario found wrong.
func (r *Result) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// WriteTable prints results as an aligned table, then each result's notes.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tcount\tp50\tp99\tmax\tthroughput\tCPU\ttarget\t\t")
	for _, r := range results {
		verdict := "ok"
		if !r.Met {
			verdict = "MISSED"
		}
		fmt.Fprintf(tw, "%s\t%d %s\t%s\t%s\t%s\t%s\t%.1f%%\t%s\t%s\t\n", r.Scenario, r.Count, r.Unit,
			dur(r.P50), dur(r.P99), dur(r.Max), rate(r.Throughput), r.CPU, r.Target, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if len(r.Notes) > 0 {
			if _, err := fmt.Fprintf(w, "%s: %s\n", r.Scenario, strings.Join(r.Notes, "; ")); err != nil {
				return err
			}
		}
		if len(r.Problems) > 0 {
			if _, err := fmt.Fprintf(w, "%s: PROBLEMS: %s\n", r.Scenario, strings.Join(r.Problems, "; ")); err != nil {
				return err
			}
		}
	}
	return nil
}

func dur(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f ms", ms(d))
}

func rate(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f/s", v)
}
