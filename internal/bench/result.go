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
	// Target states the absolute figures the scenario must show;
	// TargetMet whether it did.
	Target    string `json:"target"`
	TargetMet bool   `json:"target_met"`
	// Floor is the base of the scenario's ratio target, measured in the
	// same run; nil for a scenario without one. Ratio is the scenario's
	// figure to that base (zero when the base is unavailable), RatioTarget
	// the limit it must keep, RatioMet whether it did (nil without a
	// ratio).
	Floor       *FloorBase `json:"floor,omitempty"`
	Ratio       float64    `json:"ratio,omitempty"`
	RatioTarget string     `json:"ratio_target,omitempty"`
	RatioMet    *bool      `json:"ratio_met,omitempty"`
	// Met is the verdict: the ratio target where there is a ratio, else
	// the absolute target. A result that measured nothing, or found a
	// problem, never meets it.
	Met bool `json:"met"`
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
	return marshalPlain(struct {
		plain
		P50 float64 `json:"p50_ms"`
		P99 float64 `json:"p99_ms"`
		Max float64 `json:"max_ms"`
	}{plain(r), ms(r.P50), ms(r.P99), ms(r.Max)})
}

// marshalPlain is json.Marshal without HTML escaping, for the report's
// JSON: targets say "<=" and ">=".
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
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

// WriteTable prints a report: the machine on one line (and the store on
// PostgreSQL), the floors as a table, then the scenarios as a table (each
// with its floor base, ratio and ratio target where it has one), then
// each result's notes, and the scenarios skipped with why.
func WriteTable(w io.Writer, rep Report) error {
	if _, err := fmt.Fprintf(w, "machine: %s\n", rep.Machine); err != nil {
		return err
	}
	if rep.Store == "postgresql" {
		if _, err := fmt.Fprintln(w, "store: PostgreSQL, an empty database per scenario; targets for PostgreSQL"); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	if len(rep.Floors) > 0 {
		if err := writeFloors(w, rep.Floors); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tcount\tp50\tp99\tmax\tthroughput\tCPU\ttarget\tfloor\tratio\tratio target\tverdict")
	for _, r := range rep.Scenarios {
		verdict := "ok"
		if !r.Met {
			verdict = "MISSED"
		}
		target, base, ratio, ratioTarget := r.Target, "-", "-", "-"
		if r.Floor != nil {
			// The ratio decides; the absolute target informs.
			target += " (missed)"
			if r.TargetMet {
				target = r.Target + " (ok)"
			}
			ratioTarget = r.RatioTarget
			if r.Floor.Base > 0 {
				base = fine(r.Floor.Base)
			}
			if r.RatioMet != nil {
				ratio = fmt.Sprintf("%.2f×", r.Ratio)
			}
		}
		fmt.Fprintf(tw, "%s\t%d %s\t%s\t%s\t%s\t%s\t%.1f%%\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, r.Count, r.Unit,
			dur(r.P50), dur(r.P99), dur(r.Max), rate(r.Throughput), r.CPU, target, base, ratio, ratioTarget, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.Scenarios {
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
	for _, s := range rep.Skipped {
		if _, err := fmt.Fprintf(w, "%s: skipped: %s\n", s.Scenario, s.Why); err != nil {
			return err
		}
	}
	return nil
}

// writeFloors prints the floor table and the floors' notes, then a blank
// line.
func writeFloors(w io.Writer, floors []FloorResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "floor\tcount\tp50\tp99\tmean\tthroughput\tCPU\twhat")
	for _, f := range floors {
		if f.Unavailable != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\tunavailable: %s\n", f.Floor, f.Unavailable)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d %s\t%s\t%s\t%s\t%s\t%.1f%%\t%s\n", f.Floor, f.Count, f.Unit,
			fine(f.P50), fine(f.P99), fine(f.Mean), rate(f.Throughput), f.CPU, f.What)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range floors {
		if len(f.Notes) > 0 {
			if _, err := fmt.Fprintf(w, "%s: %s\n", f.Floor, strings.Join(f.Notes, "; ")); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// fine prints a floor's time to the microsecond.
func fine(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f ms", ms(d))
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
