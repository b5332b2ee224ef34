package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/internal/textsafe"
)

// transport is what a connection to a device does, and all it does (devlib's connection): run a command line, run a
// program in the background and copy files. adb, ssh and novacom reach a device; local is this machine. device builds
// the one Target on top of every one of them.
type transport interface {
	// exec runs command in a POSIX sh of its own on the device, with stdin (nil for none), and returns its exit
	// status: 128+N when the command died of signal N. It returns when the command ends, or with ctx's error when
	// ctx ends first; the command may then still run on the device. An error is the transport's, never the
	// command's.
	exec(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (int, error)
	// push copies r to the file remote on the device.
	push(ctx context.Context, r io.Reader, remote string) error
	// pull copies the file remote on the device to w.
	pull(ctx context.Context, remote string, w io.Writer) error
	// close ends the connection.
	close() error
}

// starter is a transport that starts a program in the background itself: this machine's, which runs it by exec, its
// words as they are. Every other transport starts it in its shell with runScript.
type starter interface {
	// start runs argv (the run prefix, the program and its arguments) in a process group of its own whose leader's
	// pid it writes to pidFile (what kill signals), and returns when it ends: nil, an *ExitError, a *startError when
	// it could not start, or the transport's error; ctx's error when ctx ends first.
	start(ctx context.Context, pidFile string, argv []string, stdout, stderr io.Writer) error
}

// startError is a program that could not be started (this machine's exec failed): not a lost connection.
type startError struct{ err error }

func (e *startError) Error() string { return e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// probe is how one kind of device tells its facts: a script for its shell and the parser of what it prints.
type probe struct {
	script string
	parse  func(out []byte) artifact.Device
	// inline sends the script as the command line itself, instead of as a file run by sh (novacom carries one line
	// per command; adbd takes any length, and its simulator reads paths off the command line).
	inline bool
}

// linuxProbe is a Linux device's (ssh, novacom): the common facts, load, libc, clocks and thermal zones.
var linuxProbe = probe{script: ProbeScript + sshProbeScript, parse: func(out []byte) artifact.Device {
	d := ParseProbe(out)
	parseSSHProbe(out, &d)
	return d
}}

// device is the one Target over every transport: a fresh run directory under the workdir, push, run with a pid
// file, kill of the whole process group, the device probe, its CPUs and cleanup.
type device struct {
	name     string
	label    string // how errors name the device: "device SERIAL", "webos (root@touchpad:22)"
	machine  string // the device, for Capabilities().Machine and the record of its run directory
	platform Platform
	workdir  string
	prefix   []string // the run prefix, one word each
	log      io.Writer
	tr       transport
	probe    probe
	cpus     *cpuControl // the device's CPUs: their state, pinning and clocks
	host     bool        // the device is this machine (deviceParts.host)

	runs atomic.Int64 // numbers the pid files

	mu     sync.Mutex
	dir    string // the run's directory, "" before it is made
	record string // the local record of dir, removed with it
	closed bool
}

// deviceParts is what a transport knows of its device when it makes the target.
type deviceParts struct {
	name     string    // the target's name in the config
	label    string    // how errors name the device
	machine  string    // the device, for Capabilities().Machine
	platform Platform  // its toolchain and ABI
	workdir  string    // where its run directories go
	prefix   string    // the spec's run prefix, as the user wrote it
	sysfs    string    // the spec's root of the device's sysfs ("" for DefaultSysfs)
	log      io.Writer // progress; nil for none
	tr       transport
	probe    probe
	// host says the device is this machine (the local transport): its files are this machine's, so a program runs
	// where it was built (with no run directory: its pid file goes to the temp directory) and the profiler reads what
	// it writes in place; no other host shares it, so it has no lease;
	// and the settings a lock of its clocks changes are kept in the cache, never with su (whose password a terminal
	// would ask for).
	host bool
}

// newDevice checks the run prefix and fills in what every transport shares.
func newDevice(p deviceParts) (*device, error) {
	words, err := PrefixWords(p.prefix)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", p.name, err)
	}
	if p.log == nil {
		p.log = io.Discard
	}
	r := &device{name: p.name, label: p.label, machine: p.machine, platform: p.platform, workdir: p.workdir,
		prefix: words, log: p.log, tr: p.tr, probe: p.probe, host: p.host}
	r.cpus = r.newCPUControl(p.sysfs)
	return r, nil
}

func (r *device) String() string { return r.label }

// Name implements Target.
func (r *device) Name() string { return r.name }

// Platform implements Target.
func (r *device) Platform() Platform { return r.platform }

// Capabilities implements Target: the device's CPUs, through its shell and sysfs; the machine the device is, so that
// runs on it go one after another; and, for a device other than this machine, the device's lease, beside the run
// directories in the workdir. Its files are the device's, but for this machine's own.
func (r *device) Capabilities() Capabilities {
	if r.host {
		return Capabilities{CPUs: r, Machine: r.machine, HostFiles: true}
	}
	return Capabilities{CPUs: r, Machine: r.machine, lease: r.leaseSite()}
}

// fail wraps a transport failure with the device and the operation.
func (r *device) fail(op string, err error) error {
	return fmt.Errorf("%s: %s: %w", r.label, op, err)
}

// output runs a short command and returns its stdout; a non-zero exit is an error with its stderr.
func (r *device) output(ctx context.Context, command string, stdin io.Reader) ([]byte, error) {
	var stdout bytes.Buffer
	if err := execOK(ctx, r.tr, command, stdin, &stdout); err != nil {
		return nil, err
	}
	return stdout.Bytes(), nil
}

// execOK runs a command through tr; a non-zero exit is an error with its stderr.
func execOK(ctx context.Context, tr transport, command string, stdin io.Reader, stdout io.Writer) error {
	var stderr bytes.Buffer
	status, err := tr.exec(ctx, command, stdin, stdout, &stderr)
	if err == nil && status != 0 {
		// The device's stderr ends up on a terminal: no control character of it goes along.
		err = fmt.Errorf("%s: exit status %d: %s", brief(command), status, textsafe.Lines(strings.TrimSpace(stderr.String())))
	}
	return err
}

// brief shortens a command for an error message: its first line, at most 60 bytes.
func brief(command string) string {
	command, _, cut := strings.Cut(strings.TrimSpace(command), "\n")
	if len(command) > 60 {
		command, cut = command[:60], true
	}
	if cut {
		command += " ..."
	}
	return command
}

// runDir makes the run's directory on first use, after removing what earlier runs that lost their connection left
// on this device.
func (r *device) runDir(ctx context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dir != "" {
		return r.dir, nil
	}
	r.sweep(ctx)
	var out []byte
	err := within(ctx, shortOp, "mkdir", func(ctx context.Context) (err error) {
		out, err = r.output(ctx, mkdirScript(r.workdir), nil)
		return err
	})
	if err != nil {
		return "", r.fail("making a directory in "+r.workdir, err)
	}
	dir := lastLine(out)
	if !strings.HasPrefix(dir, "/") || !strings.HasPrefix(path.Base(dir), runDirPrefix) {
		return "", fmt.Errorf("%s: making a directory in %s: the shell printed %q", r.label, r.workdir, dir)
	}
	if path.IsAbs(r.workdir) {
		dir = path.Join(r.workdir, path.Base(dir)) // the workdir as given, should pwd see it through a link
	}
	r.dir = dir
	r.record = recordRunDir(r.machine, dir)
	r.cpus.recoverLeft(ctx) // the clocks a killed run left locked, with what it left on the device
	return dir, nil
}

// lastLine is the last non-empty line of a command's output: what the command printed after anything a login
// shell's profile printed first (a banner, a motd).
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Push implements Target: the binary goes into the run's directory, mode 0755; on this machine it runs where it was
// built.
func (r *device) Push(ctx context.Context, local string) (string, error) {
	if r.host {
		return local, nil
	}
	dir, err := r.runDir(ctx)
	if err != nil {
		return "", err
	}
	f, err := os.Open(local)
	if err != nil {
		return "", fmt.Errorf("%s: push: %w", r.label, err)
	}
	defer f.Close()
	remote := remoteJoin(dir, filepath.Base(local))
	err = within(ctx, transferOp, "push", func(ctx context.Context) error { return r.tr.push(ctx, f, remote) })
	if err == nil {
		err = within(ctx, shortOp, "chmod", func(ctx context.Context) error {
			_, err := r.output(ctx, "chmod 755 "+shellPath(remote), nil)
			return err
		})
	}
	if err != nil {
		return "", r.fail("pushing "+local+" to "+remote, err)
	}
	return remote, nil
}

// Pull implements Target.
func (r *device) Pull(ctx context.Context, remote, local string) error {
	f, err := os.Create(local)
	if err != nil {
		return err
	}
	err = within(ctx, transferOp, "pull", func(ctx context.Context) error { return r.tr.pull(ctx, remote, f) })
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(local)
		return r.fail("pulling "+remote, err)
	}
	return nil
}

// Run implements Target. The program runs in the background (background), under the run prefix. When ctx ends it is
// killed on the device through a command of its own, the kill script (dropping the stream leaves it running on most
// devices), and its stream, which then ends, is read to the end; a stream that does not end is dropped after a short
// wait.
func (r *device) Run(ctx context.Context, command string, args []string, stdout, stderr io.Writer) error {
	dir, pidFile, err := r.newPidFile(ctx)
	if err != nil {
		return err
	}
	if r.host {
		defer os.Remove(pidFile)
	}
	stream, drop := context.WithCancel(context.WithoutCancel(ctx))
	defer drop()
	killed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(killed)
		r.kill(pidFile)
		select {
		case <-stream.Done():
		case <-time.After(streamGrace):
			drop()
		}
	})
	err = r.background(stream, dir, pidFile, command, args, stdout, stderr)
	if !stop() {
		drop()
		<-killed
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %s: %w", r.label, path.Base(command), ctx.Err())
	}
	var exit *ExitError
	var notStarted *startError
	switch {
	case err == nil || errors.As(err, &exit):
		return err
	case errors.As(err, &notStarted):
		return fmt.Errorf("%s: starting %s: %w", r.label, command, notStarted.err)
	}
	return r.fail("connection lost while running "+path.Base(command), err)
}

// newPidFile is where the next program's pid goes, and the run's directory it is in: a file of that directory on a
// device; on this machine, which keeps no run directory (its programs run where they were built), a fresh file of its
// temp directory, which Run removes.
func (r *device) newPidFile(ctx context.Context) (dir, pidFile string, err error) {
	if r.host {
		f, err := os.CreateTemp("", "bench-bridge-*.pid")
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", r.label, err)
		}
		return "", f.Name(), f.Close()
	}
	if dir, err = r.runDir(ctx); err != nil {
		return "", "", err
	}
	return dir, path.Join(dir, fmt.Sprintf(".run-%d.pid", r.runs.Add(1))), nil
}

// background runs the program with args under the run prefix, in a process group of its own whose leader's pid goes
// to pidFile, and returns when it ends (as starter's start does): through the transport's start where it has one,
// else with runScript in the device's shell, in the run's directory dir.
func (r *device) background(ctx context.Context, dir, pidFile, command string, args []string, stdout, stderr io.Writer) error {
	if s, ok := r.tr.(starter); ok {
		return s.start(ctx, pidFile, slices.Concat(r.prefix, []string{command}, args), stdout, stderr)
	}
	status, err := r.tr.exec(ctx, runScript(dir, pidFile, r.prefix, command, args), nil, stdout, stderr)
	if err != nil {
		return err
	}
	return exitStatus(status)
}

// kill stops a cancelled run's program on the device, within its own bound: the run's context is over.
func (r *device) kill(pidFile string) {
	err := within(context.Background(), killOp, "the kill script", func(ctx context.Context) error {
		_, err := r.output(ctx, killScript(pidFile), nil)
		return err
	})
	if err != nil {
		fmt.Fprintf(r.log, "%s: could not kill the program on the device: %v\n", r.label, err)
	}
}

// Device implements Target: the kind's probe, run by the device's shell.
func (r *device) Device(ctx context.Context) (artifact.Device, error) {
	var out []byte
	script := withSysfs(r.probe.script, r.cpus.sysfs)
	err := within(ctx, shortOp, "the probe", func(ctx context.Context) (err error) {
		if r.probe.inline {
			out, err = r.output(ctx, script, nil)
			return err
		}
		dir, err := r.runDir(ctx)
		if err != nil {
			return err
		}
		probe := remoteJoin(dir, "probe.sh")
		if err := r.tr.push(ctx, strings.NewReader(script), probe); err != nil {
			return err
		}
		out, err = r.output(ctx, "sh "+shellPath(probe), nil)
		return err
	})
	if err != nil {
		return artifact.Device{}, r.fail("reading device facts", err)
	}
	d := r.probe.parse(out)
	d.RunPrefix = strings.Join(r.prefix, " ")
	d.Emulated, d.EmulatedReason = emulation(d.Arch, "", r.prefix, d.Emulated)
	for _, w := range d.Warnings {
		fmt.Fprintf(r.log, "%s: warning: %s\n", r.name, textsafe.Line(w))
	}
	return d, nil
}

// cleanup removes the run's directory; one that cannot be removed is named, and the next connection removes it.
func (r *device) cleanup() error {
	r.mu.Lock()
	dir, record := r.dir, r.record
	r.dir, r.record = "", ""
	r.mu.Unlock()
	if dir == "" {
		return nil
	}
	if err := r.remove(context.Background(), dir); err != nil {
		fmt.Fprintf(r.log, "%s: warning: %s is left on the device: bench-bridge removes it at the next connection\n", r.label, dir)
		return r.fail("removing "+dir, err)
	}
	forgetRunDir(record)
	return nil
}

// remove deletes a run directory on the device, within its bound.
func (r *device) remove(ctx context.Context, dir string) error {
	if !strings.HasPrefix(path.Base(dir), runDirPrefix) {
		return fmt.Errorf("%s is not a run directory", dir) // never rm -rf anything else
	}
	return within(ctx, shortOp, "rm -rf "+dir, func(ctx context.Context) error {
		_, err := r.output(ctx, "rm -rf "+shellPath(dir), nil)
		return err
	})
}

// Close implements Target: it removes the run's directory and disconnects.
func (r *device) Close() error {
	r.mu.Lock()
	closed := r.closed
	r.closed = true
	r.mu.Unlock()
	if closed {
		return nil
	}
	err := r.cleanup()
	if cerr := r.tr.close(); err == nil {
		err = cerr
	}
	return err
}

// exitStatus reads a shell's exit status: 128+N is death by signal N, as sh, adbd and sshd's shells report it.
func exitStatus(status int) error {
	switch {
	case status == 0:
		return nil
	case status > 128 && status <= 128+64:
		return &ExitError{Status: -1, Signal: signalName(syscall.Signal(status - 128))}
	}
	return &ExitError{Status: status}
}

var errNoStdin = errors.New("this transport takes no stdin")
