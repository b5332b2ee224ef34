package targets

import (
	"context"
	"fmt"
	"path"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// savedClocksName is the file in a remote device's workdir that keeps the settings a lock of its clocks changed: not
// in the run's directory, which goes at the end of the run, and not named like one.
const savedClocksName = ".bench-bridge-clocks"

// newCPUControl is a remote device's CPUs, driven through its shell; sysfs is the spec's root ("" for DefaultSysfs).
func (r *remote) newCPUControl(sysfs string) *cpuControl {
	return &cpuControl{label: r.label, sysfs: firstSet(sysfs, DefaultSysfs), saved: path.Join(r.workdir, savedClocksName), log: r.log,
		trySu: true, sh: r.script}
}

// script runs a short script in the device's shell within its bound.
func (r *remote) script(ctx context.Context, script string) (out []byte, err error) {
	err = within(ctx, shortOp, "a script of the device's state", func(ctx context.Context) error {
		out, err = r.output(ctx, script, nil)
		return err
	})
	return out, err
}

// Cores implements CPUs.
func (r *remote) Cores(ctx context.Context) ([]Core, error) { return r.cpus.Cores(ctx) }

// State implements CPUs.
func (r *remote) State(ctx context.Context) (State, error) { return r.cpus.State(ctx) }

// LockClocks implements CPUs.
func (r *remote) LockClocks(ctx context.Context, cores []int) ([]artifact.LockedCluster, error) {
	return r.cpus.LockClocks(ctx, cores)
}

// RestoreClocks implements CPUs.
func (r *remote) RestoreClocks(ctx context.Context) error { return r.cpus.RestoreClocks(ctx) }

// Pin implements CPUs: the pin goes before the run prefix.
func (r *remote) Pin(cores []int) error {
	words, err := pinWords(cores)
	if err != nil {
		return fmt.Errorf("%s: %w", r.label, err)
	}
	r.prefix = append(words, r.prefix...)
	return nil
}
