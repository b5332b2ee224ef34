package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// registerWaitFlag adds --wait: how long a run waits for a device that another run holds.
func registerWaitFlag(f *pflag.FlagSet, wait *time.Duration) {
	f.DurationVar(wait, "wait", 0, "how long to wait for a device that another run holds before failing (default: until it is free)")
}

// targetsFailed is the command's error when targets failed: one target's error as it is, or for several the count
// and the names of those that failed (the others' artifacts are complete), then each one's error.
func targetsFailed(names []string, errs []error) error {
	var failed []string
	var all []error
	for i, err := range errs {
		if err != nil {
			failed, all = append(failed, names[i]), append(all, err)
		}
	}
	switch {
	case len(failed) == 0:
		return nil
	case len(names) == 1:
		return all[0]
	}
	return fmt.Errorf("%d of %d targets failed: %s\n%w", len(failed), len(names), strings.Join(failed, ", "), errors.Join(all...))
}
