package session

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Hold is the runner's Hold of a command that runs programs on a device: the device's lease
// (targets.Acquire), waiting as long as wait says (0: until it is free), saying on log who holds it. The context it
// returns ends when the lease is lost, and release then returns why. A lease that cannot be removed (the device went
// away) is a warning: the run is over, and the next run takes the lease over.
func Hold(wait time.Duration, log io.Writer) runner.Hold {
	return func(ctx context.Context, t targets.Target) (context.Context, func() error, error) {
		lease, err := targets.Acquire(ctx, t, targets.LeaseOptions{Wait: wait, Log: log})
		if err != nil {
			return nil, nil, err
		}
		held, cancel := context.WithCancelCause(ctx)
		go func() {
			select {
			case <-lease.Lost():
				cancel(lease.Err())
			case <-held.Done():
			}
		}()
		release := func() error {
			cancel(nil)
			if err := lease.Release(); err != nil {
				fmt.Fprintf(log, "warning: %v; the next run takes it over\n", err)
			}
			return lease.Err()
		}
		return held, release, nil
	}
}
