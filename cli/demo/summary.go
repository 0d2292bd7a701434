package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// Summary is the outcome of a run, as 'stick demo --json' prints it.
type Summary struct {
	// OK is true when every check passed.
	OK bool `json:"ok"`
	// Turns is the number of turns granted.
	Turns int `json:"turns"`
	// Killed is the agent killed with SIGKILL while it held KilledTurn.
	Killed     string `json:"killed"`
	KilledTurn int64  `json:"killed_turn"`
	// OwnerGone lists the survivors that saw owner_gone, with how long after the SIGKILL.
	OwnerGone []Detection `json:"owner_gone"`
	// TakenOverBy is the survivor whose takeover committed, TakeoverMS after the SIGKILL.
	TakenOverBy string  `json:"taken_over_by"`
	TakeoverMS  float64 `json:"takeover_after_kill_ms"`
	// Checks are the expectations, in the order they are printed.
	Checks []Check `json:"checks"`
	// DurationMS is how long the whole run took.
	DurationMS float64 `json:"duration_ms"`
	// KeptDir is the temporary directory, when it was kept.
	KeptDir string `json:"kept_dir,omitempty"`
}

// Detection is how and when one survivor learned that the killed agent
// was gone.
type Detection struct {
	Agent string `json:"agent"`
	// Via is "wait_for_turn" (it returned takeover_available, owner_gone) or
	// "log" (another survivor's takeover, reason owner_gone, committed first).
	Via     string  `json:"via"`
	AfterMS float64 `json:"after_kill_ms"`
}

// The ways a survivor learns that the holder died.
const (
	viaWait = "wait_for_turn"
	viaLog  = "log"
)

// detection returns how and when agent first learned that the victim died.
func (d *driver) detection(agent string) (Detection, bool) {
	for _, s := range d.steps {
		if s.Agent != agent || s.From != victim {
			continue
		}
		det := Detection{Agent: agent, AfterMS: msFloat(time.UnixMicro(s.At).Sub(d.killedAt))}
		switch {
		case s.Kind == stepOwnerGone && s.Turn == d.heldTurn && s.Reason == string(stick.ReasonOwnerGone):
			det.Via = viaWait
			return det, true
		case s.Kind == stepSawTakeover && s.Turn == d.heldTurn+1 && s.Reason == string(stick.ReasonOwnerGone):
			det.Via = viaLog
			return det, true
		}
	}
	return Detection{}, false
}

// summary gathers the outcome of a run from the checks and the steps.
func (d *driver) summary(checks []Check) Summary {
	s := Summary{OK: true, Killed: victim, KilledTurn: d.heldTurn, Checks: checks, OwnerGone: []Detection{},
		DurationMS: msFloat(time.Since(d.begun))}
	for _, c := range checks {
		s.OK = s.OK && c.OK
	}
	for _, st := range d.steps {
		switch st.Kind {
		case stepGrant, stepTakeover:
			s.Turns++
		}
		if st.Kind == stepTakeover {
			s.TakenOverBy, s.TakeoverMS = st.Agent, msFloat(time.UnixMicro(st.At).Sub(d.killedAt))
		}
	}
	for _, name := range roster {
		if det, ok := d.detection(name); ok {
			s.OwnerGone = append(s.OwnerGone, det)
		}
	}
	if d.o.Keep {
		s.KeptDir = d.dir
	}
	return s
}

// printSummary prints the summary: as JSON on Out, or as a list of checks.
func (d *driver) printSummary(s Summary) error {
	if d.o.JSON {
		enc := json.NewEncoder(d.o.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	w := d.o.Out
	fmt.Fprintln(w, "\nsummary")
	for _, c := range s.Checks {
		mark := "✓"
		if !c.OK {
			mark = "✗"
		}
		fmt.Fprintf(w, "  %s %-21s %s\n", mark, c.Name, c.Detail)
	}
	verdict := "everything happened as expected"
	if !s.OK {
		verdict = "SOME CHECKS FAILED"
	}
	fmt.Fprintf(w, "%d turns in %.2f s; %s\n", s.Turns, s.DurationMS/1000, verdict)
	if s.KeptDir != "" {
		// The demo ran on its own SQLite database, whatever database the
		// environment names for other commands.
		unset := ""
		if os.Getenv(storeurl.Env) != "" {
			unset = storeurl.Env + "= "
		}
		fmt.Fprintf(w, "to read the room's log: %s%s=%s stick events %s\n", unset, store.DataDirEnv,
			filepath.Join(s.KeptDir, "data"), filepath.Join(s.KeptDir, "workspace"))
	}
	return nil
}

// msFloat is d in milliseconds, to the microsecond.
func msFloat(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
