package harness

import "runtime"

// The memory pass runs memoryUnits loop units counted after memoryWarmupUnits that are not, in a fresh set-up of the
// case: fixed numbers and a fresh set-up, not the timed state, so that what it counts depends on nothing the clock
// decided. As the C harness's (cases/c/harness_memory.c).
const (
	memoryWarmupUnits = 4
	memoryUnits       = 16
)

// memoryPass sets case c up again, counts what memoryUnits of its loop units allocate and prints one memory record.
//
// A Go program allocates through Go's allocator, engine and host alike (goja's objects and the bridge's values are
// all on Go's heap), and the harness cannot tell the two apart: the record gives what the Go heap counted during the
// pass (runtime.MemStats' Mallocs and TotalAlloc) as the host's, host_allocs and host_bytes, and no engine counts. An
// engine that allocates outside Go's heap (modernc.org/quickjs allocates QuickJS's heap through its own C library)
// is not in them.
func (h *harness) memoryPass(c *Case) error {
	l, err := setup(c)
	if err != nil {
		return err
	}
	defer closeLoop(l)
	unit := unitOps(c.Name)
	if _, _, err := timed(l, memoryWarmupUnits, unit); err != nil {
		return err
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, ops, err := timed(l, memoryUnits, unit)
	runtime.ReadMemStats(&after)
	if err != nil {
		return err
	}
	h.line("memory %s ops=%d host_allocs=%d host_bytes=%d", c.Name, ops, after.Mallocs-before.Mallocs,
		after.TotalAlloc-before.TotalAlloc)
	return nil
}
