//go:build !amd64 && !arm64

package harness

// fence is nothing on the other architectures: 32-bit ARM before ARMv7 runs in order, and the C harness fences only
// x86-64 and ARMv7 and later.
func fence() {}
