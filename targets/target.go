// Package targets moves bench programs to a device and runs them there: push, run, pull, and the facts about the
// device that an artifact records. As in devlib, a transport (adb, ssh, novacom, and this machine's, local) only runs
// a command line, runs a program in the background and copies files; one target (device.go) builds the rest on top of
// every one of them: run directories, the kill of a program's process group, the probe, the CPUs. Every step on a
// device has a bound (bounds.go), and errors name the device and the operation.
package targets

import (
	"context"
	"fmt"
	"io"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// Target is a device bench programs run on.
type Target interface {
	// Name is the target's name as the user gave it ("linux", "android", a config name).
	Name() string
	// Platform says what the target runs, for the caller to choose the toolchain that builds for it.
	Platform() Platform
	// Push makes the local binary runnable on the device and returns its path there.
	Push(ctx context.Context, local string) (string, error)
	// Run runs the program with args, streaming its stdout and stderr, until it exits or ctx ends (then it is
	// killed on the device). A program that ran and exited non-zero is an *ExitError, not a transport error.
	Run(ctx context.Context, program string, args []string, stdout, stderr io.Writer) error
	// Pull copies a file from the device to the local path (profiler data, for example).
	Pull(ctx context.Context, remote, local string) error
	// Device describes the device for the artifact.
	Device(ctx context.Context) (artifact.Device, error)
	// Close removes what Push left on the device.
	Close() error
	// Capabilities says what the target can do beyond running programs, declared once by the target.
	Capabilities() Capabilities
}

// Capabilities are what a target can do beyond running programs. Each target declares them in one place, its
// Capabilities method; the runner, the lease and the profiler read them here rather than asking the target's type.
type Capabilities struct {
	// CPUs reads the device's state around each process, pins the programs and locks the clocks; nil when the target
	// cannot (a test's fake). The runner reads it (runner/devstate.go) for --cpu, --lock-clocks and the device's
	// state beside each process.
	CPUs CPUs
	// Machine names the machine the target runs on; "" when the target's name stands for it. Read through
	// targets.Machine, by which the runner keeps runs on one machine one after another.
	Machine string
	// HostFiles says that the target's files are this machine's: a program it runs, and what that program writes,
	// can be read on the host at the same paths (the local target). The profiler reads them there rather than pulling
	// copies, and clears an earlier run's samples beside the program (the program's directory is the build's cache).
	HostFiles bool
	// lease is where the device's lease lives; nil for a target with no device of its own to share (the local
	// machine, a test's fake), which Acquire does not lease.
	lease *leaseSite
}

// Platform is what a target tells about the programs it runs; build.ForPlatform turns it into a toolchain.
type Platform struct {
	// Toolchain is the toolchain the spec names, or the kind's own default (webos for novacom), or the one an ssh
	// board's userland calls for; empty means the ABI's, else the host's.
	Toolchain string
	// ABI is an Android device's ro.product.cpu.abi; empty elsewhere.
	ABI string
}

// ExitError is a program that ran and ended badly: a non-zero exit status or a signal.
type ExitError struct {
	Status int    // exit status, or -1 when killed by a signal
	Signal string // the signal's name, when there was one
}

func (e *ExitError) Error() string {
	if e.Signal != "" {
		return "killed by signal " + e.Signal
	}
	return fmt.Sprintf("exit status %d", e.Status)
}

// Machine names the machine a target runs on, so that runs on one machine go one after another while different
// machines run in parallel. A target says which machine it is in its Capabilities; otherwise its name stands for its
// machine.
func Machine(t Target) string {
	if m := t.Capabilities().Machine; m != "" {
		return m
	}
	return t.Name()
}
