// Package interrupt is how bench-bridge stops on a signal: the first SIGINT or SIGTERM cancels the run, which then
// cleans up on the device within bounds; a second one ends the process at once, cleanup or not.
package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Signalled is the cause of a run cancelled by a signal.
type Signalled struct{ Signal os.Signal }

func (s Signalled) Error() string { return "interrupted by " + name(s.Signal) }

// Status is the exit status for the signal, 128+N as shells report it: 130 for SIGINT, 143 for SIGTERM.
func (s Signalled) Status() int {
	if n, ok := s.Signal.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}

func name(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// Notify cancels the run (with Signalled as the cause) at the first SIGINT or SIGTERM and exits at the second,
// whatever is still running: cleanup has bounds, but a user who asks twice does not wait for them. What it does is
// said on stderr. The returned function stops listening.
func Notify(cancel context.CancelCauseFunc, stderr io.Writer) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(Signalled{s})
			fmt.Fprintf(stderr, "bench-bridge: %s: stopping and cleaning up on the device; press Ctrl-C again to quit at once\n", name(s))
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "bench-bridge: %s again: quitting without cleaning up; what is left on the device is removed at the next connection\n", name(s))
			os.Exit(Signalled{s}.Status())
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
