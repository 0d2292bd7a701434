//go:build !linux

package bench

// peakRSS is unknown off Linux; the current size is reported instead.
func peakRSS(int) uint64 { return 0 }
