package render

import (
	"strings"
	"time"
)

// Duration writes d as people and the CLI's duration flags write one,
// without zero units: 45m, 1h30m, 4h, 30s, 100ms.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
