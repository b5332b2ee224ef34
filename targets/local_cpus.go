package targets

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/internal/textsafe"
)

// newCPUControl is this machine's CPUs, driven through sh; sysfs is the spec's root ("" for DefaultSysfs). The
// settings a lock changes are kept beside the run-directory records.
func (l *Local) newCPUControl(sysfs string) *cpuControl {
	saved := filepath.Join(os.TempDir(), "bench-bridge-clocks")
	if rd, err := recordsDir(); err == nil {
		saved = filepath.Join(filepath.Dir(rd), "clocks.saved")
	}
	return &cpuControl{label: l.name, sysfs: firstSet(sysfs, DefaultSysfs), saved: saved, log: io.Discard,
		sh: localShell("sh")}
}

// localShell runs a short script in this machine's shell (sh, or another for tests: mksh, busybox sh), within its
// bound.
func localShell(shell ...string) func(ctx context.Context, script string) ([]byte, error) {
	return func(ctx context.Context, script string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(ctx, shortOp)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, shell[0], append(shell[1:], "-c", script)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s: %w: %s", brief(script), err, textsafe.Lines(strings.TrimSpace(stderr.String())))
		}
		return stdout.Bytes(), nil
	}
}

// SetLog makes the local target tell what it does to the machine's clocks on log.
func (l *Local) SetLog(log io.Writer) {
	if log != nil {
		l.cpus.log = log
	}
}

// Cores implements CPUs.
func (l *Local) Cores(ctx context.Context) ([]Core, error) { return l.cpus.Cores(ctx) }

// State implements CPUs.
func (l *Local) State(ctx context.Context) (State, error) { return l.cpus.State(ctx) }

// LockClocks implements CPUs.
func (l *Local) LockClocks(ctx context.Context, cores []int) ([]artifact.LockedCluster, error) {
	return l.cpus.LockClocks(ctx, cores)
}

// RestoreClocks implements CPUs.
func (l *Local) RestoreClocks(ctx context.Context) error { return l.cpus.RestoreClocks(ctx) }

// Pin implements CPUs: the pin goes before the run prefix.
func (l *Local) Pin(cores []int) error {
	words, err := pinWords(cores)
	if err != nil {
		return fmt.Errorf("%s: %w", l.name, err)
	}
	l.prefix = append(words, l.prefix...)
	return nil
}
