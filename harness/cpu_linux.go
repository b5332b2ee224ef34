package harness

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// currentCPU is the core the calling thread runs on (getcpu, what sched_getcpu asks): the cpu record.
func currentCPU() (int, bool) {
	var cpu uint32
	if _, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); errno != 0 {
		return 0, false
	}
	return int(cpu), true
}
