//go:build !linux

package harness

// currentCPU: the cpu record is for Linux and Android, as the C harness prints it.
func currentCPU() (int, bool) {
	return 0, false
}
