package targets

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// savedClocksName is the file in a remote device's workdir that keeps the settings a lock of its clocks changed: not
// in the run's directory, which goes at the end of the run, and not named like one.
const savedClocksName = ".bench-bridge-clocks"

// newCPUControl is the device's CPUs, driven through its shell; sysfs is the spec's root ("" for DefaultSysfs). This
// machine keeps the settings a lock changes beside the run-directory records, and never asks su for root.
func (r *device) newCPUControl(sysfs string) *cpuControl {
	c := &cpuControl{label: r.label, sysfs: firstSet(sysfs, DefaultSysfs), saved: path.Join(r.workdir, savedClocksName), log: r.log,
		trySu: !r.host, sh: r.script}
	if r.host {
		c.saved = filepath.Join(os.TempDir(), "bench-bridge-clocks")
		if rd, err := recordsDir(); err == nil {
			c.saved = filepath.Join(filepath.Dir(rd), "clocks.saved")
		}
	}
	return c
}

// script runs a short script in the device's shell within its bound.
func (r *device) script(ctx context.Context, script string) (out []byte, err error) {
	err = within(ctx, shortOp, "a script of the device's state", func(ctx context.Context) error {
		out, err = r.output(ctx, script, nil)
		return err
	})
	return out, err
}

// Cores implements CPUs.
func (r *device) Cores(ctx context.Context) ([]Core, error) { return r.cpus.Cores(ctx) }

// State implements CPUs.
func (r *device) State(ctx context.Context) (State, error) { return r.cpus.State(ctx) }

// LockClocks implements CPUs.
func (r *device) LockClocks(ctx context.Context, cores []int) ([]artifact.LockedCluster, error) {
	return r.cpus.LockClocks(ctx, cores)
}

// RestoreClocks implements CPUs.
func (r *device) RestoreClocks(ctx context.Context) error { return r.cpus.RestoreClocks(ctx) }

// Pin implements CPUs: the pin goes before the run prefix.
func (r *device) Pin(cores []int) error {
	words, err := pinWords(cores)
	if err != nil {
		return fmt.Errorf("%s: %w", r.label, err)
	}
	r.prefix = append(words, r.prefix...)
	return nil
}
