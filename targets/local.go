package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// Local runs programs on this machine: the linux and mac targets.
type Local struct {
	name      string
	toolchain string
	prefix    []string // the run prefix, one word each: run with exec, no shell
	cpus      *cpuControl
}

// NewLocal returns the local target called name. The built-in names linux and mac refuse to run on the other
// system; a configured local target may name a toolchain (the host's by default).
func NewLocal(name string, spec Spec) (*Local, error) {
	if want, builtin := map[string]string{"linux": "linux", "mac": "darwin"}[name]; builtin && runtime.GOOS != want {
		other := map[string]string{"linux": "linux", "darwin": "mac"}[runtime.GOOS]
		return nil, fmt.Errorf("target %s runs on %s, and this machine runs %s: use bench-bridge %s", name, want, runtime.GOOS, other)
	}
	words, err := PrefixWords(spec.RunPrefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	l := &Local{name: name, toolchain: spec.Toolchain, prefix: words}
	l.cpus = l.newCPUControl(spec.Sysfs)
	return l, nil
}

// Name implements Target.
func (l *Local) Name() string { return l.name }

// Platform implements Target: the host's toolchain unless the spec names one.
func (l *Local) Platform() Platform { return Platform{Toolchain: l.toolchain} }

// Push implements Target: a local binary runs where it was built.
func (l *Local) Push(_ context.Context, local string) (string, error) { return local, nil }

// Pull implements Target by copying the file.
func (l *Local) Pull(_ context.Context, remote, local string) error {
	data, err := os.ReadFile(remote)
	if err != nil {
		return fmt.Errorf("%s: pull: %w", l.name, err)
	}
	return os.WriteFile(local, data, 0o644)
}

// Close implements Target.
func (l *Local) Close() error { return nil }

// Run implements Target. The program runs under the run prefix, its words passed to exec as they are. It gets its own
// process group so that cancelling kills it and anything it started.
func (l *Local) Run(ctx context.Context, program string, args []string, stdout, stderr io.Writer) error {
	argv := append(append(append([]string{}, l.prefix...), program), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: starting %s: %w", l.name, program, err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-done:
		}
	}()
	err := cmd.Wait()
	close(done)
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %s: %w", l.name, program, ctx.Err())
	}
	return exitError(err)
}

// exitError maps exec's error to *ExitError where the program ran.
func exitError(err error) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return err
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &ExitError{Status: -1, Signal: signalName(ws.Signal())}
	}
	return &ExitError{Status: ee.ExitCode()}
}

// Device implements Target by running the probe script in a local shell.
func (l *Local) Device(ctx context.Context) (artifact.Device, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	script := ProbeScript
	if runtime.GOOS == "linux" {
		script += sshProbeScript // load, libc, clocks and thermal zones, as a Linux device over ssh reports them
	}
	out, err := exec.CommandContext(ctx, "sh", "-c", withSysfs(script, l.cpus.sysfs)).Output()
	if err != nil {
		return artifact.Device{}, fmt.Errorf("%s: reading device facts: %w", l.name, err)
	}
	d := ParseProbe(out)
	parseSSHProbe(out, &d)
	d.RunPrefix = strings.Join(l.prefix, " ")
	d.Emulated, d.EmulatedReason = emulation(d.Arch, "", l.prefix, d.Emulated)
	return d, nil
}

// Capabilities implements Target: this machine's CPUs; the machine, the same for every local target ("local"), so
// that local runs go one after another; and this machine's files. No lease: the local machine is no device shared
// with other hosts.
func (l *Local) Capabilities() Capabilities {
	return Capabilities{CPUs: l, Machine: "local", HostFiles: true}
}
