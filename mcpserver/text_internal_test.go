package mcpserver

import (
	"testing"
	"time"
)

func TestSpan(t *testing.T) {
	for d, want := range map[time.Duration]string{
		250 * time.Millisecond: "250ms", 30 * time.Second: "30s", 5 * time.Minute: "5m", 20 * time.Minute: "20m",
		45 * time.Minute: "45m", 4 * time.Hour: "4h", 90 * time.Minute: "1h30m", 61 * time.Second: "1m1s",
		100448384 * time.Nanosecond: "100ms",
	} {
		if got := span(d); got != want {
			t.Errorf("span(%v) = %q, want %q", d, got, want)
		}
	}
}
