package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

// Local runs programs on this machine: the linux and mac targets. It is the one target (device) over this machine's
// transport, localConn.
type Local struct {
	*device
}

// localConn is this machine as a transport: a command runs in its sh, a program by exec (its words passed as they
// are, never through a shell of the host, in bench-bridge's own folder), and its files are this machine's. Every
// command and program gets a process group of its own, killed whole should its context end first.
type localConn struct{}

// localProbe is this machine's: the common facts and, on Linux, load, libc, clocks and thermal zones, as a Linux
// device over ssh reports them.
func localProbe() probe {
	p := linuxProbe
	if runtime.GOOS != "linux" {
		p.script = ProbeScript
	}
	p.inline = true
	return p
}

// NewLocal returns the local target called name. The built-in names linux and mac refuse to run on the other
// system; a configured local target may name a toolchain (the host's by default).
func NewLocal(name string, spec Spec) (*Local, error) {
	if want, builtin := map[string]string{"linux": "linux", "mac": "darwin"}[name]; builtin && runtime.GOOS != want {
		other := map[string]string{"linux": "linux", "darwin": "mac"}[runtime.GOOS]
		return nil, fmt.Errorf("target %s runs on %s, and this machine runs %s: use bench-bridge %s", name, want, runtime.GOOS, other)
	}
	if _, err := PrefixWords(spec.RunPrefix); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	d, err := newDevice(deviceParts{name: name, label: name, machine: "local", platform: Platform{Toolchain: spec.Toolchain},
		prefix: spec.RunPrefix, sysfs: spec.Sysfs, tr: localConn{}, probe: localProbe(), host: true})
	if err != nil {
		return nil, err
	}
	return &Local{device: d}, nil
}

// SetLog makes the local target tell what it does to the machine's clocks on log.
func (l *Local) SetLog(log io.Writer) {
	if log != nil {
		l.log, l.cpus.log = log, log
	}
}

// exec implements transport with sh.
func (localConn) exec(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdin = stdin
	err := runGroup(ctx, cmd, stdout, stderr, nil)
	status, signal, exited := exitOf(err)
	switch {
	case ctx.Err() != nil:
		return 0, ctx.Err()
	case !exited:
		return 0, err
	case signal != 0:
		return 128 + int(signal), nil // as a shell says it
	}
	return status, nil
}

// start implements starter: the program's pid is its process group's, written to pidFile once it runs.
func (localConn) start(ctx context.Context, pidFile string, argv []string, stdout, stderr io.Writer) error {
	err := runGroup(ctx, exec.Command(argv[0], argv[1:]...), stdout, stderr, func(pid int) error {
		return os.WriteFile(pidFile, []byte(strconv.Itoa(pid)+"\n"), 0o644)
	})
	status, signal, exited := exitOf(err)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case !exited:
		return err
	case signal != 0:
		return &ExitError{Status: -1, Signal: signalName(signal)}
	case status != 0:
		return &ExitError{Status: status}
	}
	return nil
}

// exitOf reads how a command ended from its Wait's error: its exit status, or the signal that killed it; exited is
// false for an error of another kind (it could not start, its output could not be copied).
func exitOf(err error) (status int, signal syscall.Signal, exited bool) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, 0, true
	case !errors.As(err, &ee):
		return 0, 0, false
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 0, ws.Signal(), true
	}
	return ee.ExitCode(), 0, true
}

// runGroup runs cmd in a process group of its own, which it kills when ctx ends, and returns cmd.Wait's error, or a
// *startError when cmd cannot start. started, when not nil, is told the group's pid once cmd runs; its error kills
// the group.
func runGroup(ctx context.Context, cmd *exec.Cmd, stdout, stderr io.Writer, started func(pid int) error) error {
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return &startError{err}
	}
	pid := cmd.Process.Pid
	stop := context.AfterFunc(ctx, func() { syscall.Kill(-pid, syscall.SIGKILL) })
	defer stop()
	if started != nil {
		if err := started(pid); err != nil {
			syscall.Kill(-pid, syscall.SIGKILL)
			cmd.Wait()
			return err
		}
	}
	return cmd.Wait()
}

// push implements transport by copying r to the file remote.
func (localConn) push(_ context.Context, r io.Reader, remote string) error {
	f, err := os.Create(remote)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// pull implements transport by copying the file remote to w.
func (localConn) pull(_ context.Context, remote string, w io.Writer) error {
	f, err := os.Open(remote)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// close implements transport: there is no connection to end.
func (localConn) close() error { return nil }
