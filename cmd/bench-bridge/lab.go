package main

import (
	"time"

	"github.com/spf13/pflag"
)

// registerWaitFlag adds --wait: how long a run waits for a device that another run holds.
func registerWaitFlag(f *pflag.FlagSet, wait *time.Duration) {
	f.DurationVar(wait, "wait", 0, "how long to wait for a device that another run holds before failing (default: until it is free)")
}
