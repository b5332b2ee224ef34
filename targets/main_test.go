package targets

import (
	"os"
	"testing"
)

// TestMain keeps the records of run directories that tests leave on purpose (dropped connections, stalled servers)
// out of the user's cache: they name loopback devices that never come back.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "targets-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("BENCH_BRIDGE_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
