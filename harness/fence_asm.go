//go:build amd64 || arm64

package harness

// fence keeps the instructions after it from starting before those before it are done (LFENCE on x86-64, ISB on
// arm64): without it an out-of-order CPU runs part of a long chain of busy work beside the engine's own work, and a
// crossing gains less from it than a tight loop of Crossing calls measures (cases/c/harness_timing.c).
func fence()
