//go:build unix

package harness

import (
	"runtime"
	"syscall"
)

// peakRSS is the process's peak resident set size in bytes: getrusage's ru_maxrss, which Linux and Android report in
// KiB and macOS in bytes.
func peakRSS() (uint64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil || ru.Maxrss <= 0 {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return uint64(ru.Maxrss), true
	}
	return uint64(ru.Maxrss) * 1024, true
}
