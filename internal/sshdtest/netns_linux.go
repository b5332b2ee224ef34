package sshdtest

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// do runs f on a thread that has entered the namespace: a socket belongs to the namespace it was made in.
func (n *Namespace) do(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // left locked if the thread cannot go back: it then ends with this goroutine
		self, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			done <- err
			return
		}
		defer unix.Close(self)
		target, err := unix.Open("/run/netns/"+n.Name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			done <- err
			return
		}
		defer unix.Close(target)
		if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
			done <- err
			return
		}
		err = f()
		if unix.Setns(self, unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		done <- err
	}()
	return <-done
}
