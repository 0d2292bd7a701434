package bench

import (
	"fmt"
	"strings"
	"time"
)

// ratioTarget is a scenario's target relative to its floor: the
// scenario's figure divided by a base made of floors measured in the same
// run (and, for an MCP handoff, of another scenario's result), which must
// stay at or under limit; or, for a rate, the base divided by the figure,
// which must stay at or over limit.
type ratioTarget struct {
	// figure is the scenario's time per operation the ratio divides:
	// "p50", or "per-op" (one over the throughput).
	figure string
	// base is summed into the base.
	base []basePart
	// limit is the ratio the scenario must not pass.
	limit float64
	// atLeast makes the ratio base/figure, a rate's share of the floor's
	// rate, which must be at least limit.
	atLeast bool
	// text says the target in words, for the scenario list.
	text string
	// beside, when set, is a second base the figure is compared with for
	// information only: a note under the table gives that ratio too.
	beside []basePart
}

// basePart is one term of a base: factor × a statistic of a floor figure
// or of a scenario run before.
type basePart struct {
	factor   float64
	name     string // a FloorResult.Floor, or a scenario's name
	stat     string // "mean" or "p50"
	scenario bool
}

// ratioTargets are the scenarios' ratio targets, by scenario name.
func ratioTargets() map[string]*ratioTarget {
	tx := []basePart{{1, "sqlite-claim-tx", "mean", false}, {1, "sqlite-release-tx", "mean", false}}
	return map[string]*ratioTarget{
		"cycle": {figure: "per-op", base: tx, limit: 2.5,
			text: "time per cycle <= 2.5 × (claim tx + release tx, means)"},
		"contention": {figure: "per-op", base: tx, limit: 0.40, atLeast: true,
			text: "grants/s >= 0.40 × floor transaction rate / 2, i.e. 1 / (claim tx + release tx, means)"},
		"handoff-library": {figure: "p50", limit: 5,
			base: []basePart{{1, "pipe", "p50", false}, tx[0], tx[1]},
			text: "p50 <= 5 × (pipe round trip p50 + claim tx + release tx, means)"},
		"handoff-rest": {figure: "p50", limit: 5,
			base: []basePart{{1, "http-loopback", "p50", false}, tx[0], tx[1]},
			text: "p50 <= 5 × (http-loopback round trip p50 + claim tx + release tx, means)"},
		"handoff-mcp": {figure: "p50", limit: 2,
			base: []basePart{{1, "handoff-library", "p50", true}, {2, "mcp-stdio", "p50", false}},
			text: "p50 <= 2 × (handoff-library p50 of the same run + 2 × mcp-stdio round trip p50)"},
		"start-up": {figure: "p50", limit: 3,
			base:   []basePart{{1, "bare-start", "p50", false}},
			beside: []basePart{{1, "linked-start", "p50", false}},
			text:   "p50 <= 3 × bare Go program start p50"},
	}
}

// String is the ratio target as the table shows it: "<= 2.5×", ">= 0.4×".
func (t *ratioTarget) String() string {
	if t.atLeast {
		return fmt.Sprintf(">= %g×", t.limit)
	}
	return fmt.Sprintf("<= %g×", t.limit)
}

// of says what the base is made of: "sqlite-claim-tx mean + sqlite-release-tx mean".
func (t *ratioTarget) of() string {
	var terms []string
	for _, p := range t.base {
		term := p.name + " " + p.stat
		if p.factor != 1 {
			term = fmt.Sprintf("%g × %s", p.factor, term)
		}
		terms = append(terms, term)
	}
	return strings.Join(terms, " + ")
}

// FloorBase is the base a scenario's ratio is taken to: what it is made
// of and its value in this run.
type FloorBase struct {
	// Of says how the base is made, e.g. "pipe p50 + sqlite-claim-tx mean + sqlite-release-tx mean".
	Of string `json:"of"`
	// Names are the floors (and scenarios) it is made of.
	Names []string `json:"names"`
	// Base is its value; zero when a part is unavailable.
	Base time.Duration `json:"-"`
	// Unavailable says which part is missing and why.
	Unavailable string `json:"unavailable,omitempty"`
}

// MarshalJSON writes the base as milliseconds.
func (b FloorBase) MarshalJSON() ([]byte, error) {
	type plain FloorBase
	return marshalPlain(struct {
		plain
		Base float64 `json:"base_ms"`
	}{plain(b), ms(b.Base)})
}

// baseFrom computes the base from the floors and the results before.
func (t *ratioTarget) baseFrom(floors []FloorResult, prior []Result) FloorBase {
	b := FloorBase{Of: t.of()}
	var sum float64
	for _, p := range t.base {
		b.Names = append(b.Names, p.name)
		var v time.Duration
		missing := "not measured in this run"
		if p.scenario {
			for _, r := range prior {
				if r.Scenario == p.name && r.Count > 0 && len(r.Problems) == 0 {
					v = r.P50
				}
			}
		} else {
			for _, f := range floors {
				if f.Floor == p.name {
					v = f.stat(p.stat)
					if f.Unavailable != "" {
						missing = f.Unavailable
					}
				}
			}
		}
		if v <= 0 {
			if b.Unavailable == "" {
				b.Unavailable = p.name + ": " + missing
			}
			continue
		}
		sum += p.factor * float64(v)
	}
	if b.Unavailable == "" {
		b.Base = time.Duration(sum)
	}
	return b
}

// judge sets r's floor base, ratio and verdicts. With a ratio, the ratio
// target decides whether r met its target, the absolute one informs;
// without one (its floor unavailable), the absolute target decides, as it
// does for scenarios that have no ratio target. A problem always misses.
func (t *ratioTarget) judge(r *Result, floors []FloorResult, prior []Result) {
	b := t.baseFrom(floors, prior)
	r.Floor, r.RatioTarget = &b, t.String()
	var figure time.Duration
	switch t.figure {
	case "p50":
		figure = r.P50
	case "per-op":
		if r.Throughput > 0 {
			figure = time.Duration(float64(time.Second) / r.Throughput)
		}
	}
	switch {
	case b.Base > 0 && figure > 0:
		if t.atLeast {
			r.Ratio = float64(b.Base) / float64(figure)
		} else {
			r.Ratio = float64(figure) / float64(b.Base)
		}
		// Compared as shown, to the hundredth: a ratio the table shows
		// at the limit meets it.
		shown := float64(int64(r.Ratio*100+0.5)) / 100
		met := shown <= t.limit
		if t.atLeast {
			met = shown >= t.limit
		}
		r.RatioMet = &met
		r.Met = met && len(r.Problems) == 0 && r.Count > 0
	case b.Base <= 0:
		r.note("no ratio: %s; the absolute target decides", b.Unavailable)
	}
	if len(t.beside) > 0 && figure > 0 {
		other := (&ratioTarget{base: t.beside}).baseFrom(floors, prior)
		if other.Base > 0 {
			r.note("%.2f× %s (%s)", float64(figure)/float64(other.Base), other.Of, dur(other.Base))
		}
	}
}
