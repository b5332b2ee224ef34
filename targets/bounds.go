package targets

import (
	"context"
	"fmt"
	"time"
)

// Every step on a device has a bound, so that a device or server that stops answering cannot hang bench-bridge.
// They are variables only so that tests of a stalled peer need not wait for them.
var (
	// shortOp bounds what takes a moment on a live device: listing, making a directory, the probe, cleanup.
	shortOp = 30 * time.Second
	// transferOp bounds one file copy: programs are a few MB, profiler data tens of MB.
	transferOp = 5 * time.Minute
	// openOp bounds opening a channel or service on a connection that is up: an adb service, an ssh session, the
	// sftp subsystem.
	openOp = 20 * time.Second
	// killOp bounds killing a cancelled program: the kill script waits a few seconds between SIGTERM and SIGKILL.
	killOp = 20 * time.Second
	// streamGrace is how long a killed program's output may take to end before its stream is dropped.
	streamGrace = 5 * time.Second
)

// TimeoutError is a step that did not finish within its bound.
type TimeoutError struct {
	Step  string
	Bound time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: no answer within %s", e.Step, e.Bound)
}

// Is makes a TimeoutError a context.DeadlineExceeded for errors.Is.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// within runs f with a deadline d; when that deadline, and not the caller's context, ended it, the error is a
// *TimeoutError naming step.
func within(ctx context.Context, d time.Duration, step string, f func(context.Context) error) error {
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := f(tctx)
	if err != nil && ctx.Err() == nil && tctx.Err() != nil {
		return &TimeoutError{Step: step, Bound: d}
	}
	return err
}

// untilDone runs f, which takes no context, and returns its error, or ctx's when ctx ends first; f then finishes on
// its own, so abandon is called to make it give up (closing what it reads from).
func untilDone(ctx context.Context, f func() error, abandon func()) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		if abandon != nil {
			abandon()
		}
		return ctx.Err()
	}
}
