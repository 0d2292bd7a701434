package bench

import (
	"context"
	"strings"
	"testing"
)

// TestFloorsQuick measures every floor at its quick size: each gives its
// figures, each measured, or says honestly why this machine cannot
// measure it (a tool missing), never that it failed.
func TestFloorsQuick(t *testing.T) {
	for _, fl := range Floors() {
		t.Run(fl.Name, func(t *testing.T) {
			rs, err := measureFloor(context.Background(), fl, Options{Quick: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rs {
				got = append(got, r.Floor)
				t.Logf("%s: %d %s, p50 %v, p99 %v, mean %v, %.0f/s, CPU %.1f%%, unavailable %q, notes %v",
					r.Floor, r.Count, r.Unit, r.P50, r.P99, r.Mean, r.Throughput, r.CPU, r.Unavailable, r.Notes)
				switch {
				case strings.HasPrefix(r.Unavailable, "failed") || r.Unavailable == "measured nothing":
					t.Errorf("%s: %s", r.Floor, r.Unavailable)
				case r.Unavailable != "":
					t.Logf("%s unavailable here: %s", r.Floor, r.Unavailable)
				case r.Count == 0 || r.Mean <= 0 || r.Throughput <= 0:
					t.Errorf("%s measured nothing: %+v", r.Floor, r)
				case r.P50 > 0 && (r.P99 < r.P50 || r.P50 > 10*r.Mean):
					t.Errorf("%s: p50 %v, p99 %v, mean %v do not agree", r.Floor, r.P50, r.P99, r.Mean)
				}
			}
			if strings.Join(got, " ") != strings.Join(fl.gives(), " ") {
				t.Errorf("floor %s gave %v, want %v", fl.Name, got, fl.gives())
			}
		})
	}
}
