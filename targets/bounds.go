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
// its own, so abandon (when not nil) is called to make it give up, closing what it reads from.
func untilDone(ctx context.Context, f func() error, abandon func()) error {
	_, err := await(ctx, func() (struct{}, error) { return struct{}{}, f() }, abandon, nil)
	return err
}

// await is untilDone for a call with a result: when ctx ends first, abandon (when not nil) is called at once, and
// release (when not nil) gets the result if it comes later, to close it.
func await[T any](ctx context.Context, f func() (T, error), abandon func(), release func(T)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		if abandon != nil {
			abandon()
		}
		if release != nil {
			go func() {
				if r := <-done; r.err == nil {
					release(r.v)
				}
			}()
		}
		var zero T
		return zero, ctx.Err()
	}
}
