//go:build !unix

package harness

// peakRSS: no getrusage here, so no rss record (it is optional).
func peakRSS() (uint64, bool) {
	return 0, false
}
