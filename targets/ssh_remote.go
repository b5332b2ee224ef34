package targets

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// remoteShell is what the ssh and novacom targets share: a POSIX shell on the device, a run directory made on first
// use under the workdir and removed at the end, the probe, and killing a cancelled program by its pid.
type remoteShell struct {
	label   string // how errors name the device: "webos (root@touchpad:22)"
	workdir string
	prefix  []string // the run prefix, one word each
	log     io.Writer
	// run runs a one-line script on the device and returns its stdout; a non-zero exit is an error with its stderr.
	run func(ctx context.Context, script string, stdin io.Reader) ([]byte, error)
	// upload copies r to a path on the device.
	upload func(ctx context.Context, r io.Reader, remote string) error

	dirMu sync.Mutex
	dir   string // the run's directory, "" before it is made
}

func (r *remoteShell) String() string { return r.label }

// fail wraps a transport failure with the device and the operation.
func (r *remoteShell) fail(op string, err error) error {
	return fmt.Errorf("%s: %s: %w", r.label, op, err)
}

// remoteDir makes the run's directory on first use.
func (r *remoteShell) remoteDir(ctx context.Context) (string, error) {
	r.dirMu.Lock()
	defer r.dirMu.Unlock()
	if r.dir != "" {
		return r.dir, nil
	}
	out, err := r.run(ctx, mkdirScript(r.workdir), nil)
	if err != nil {
		return "", r.fail("making a directory in "+r.workdir, err)
	}
	dir := strings.TrimSpace(string(out))
	if !strings.HasPrefix(dir, "/") {
		return "", fmt.Errorf("%s: making a directory in %s: the shell printed %q", r.label, r.workdir, dir)
	}
	r.dir = dir
	return dir, nil
}

// push uploads a local file into the run's directory and makes it executable.
func (r *remoteShell) push(ctx context.Context, local string) (string, error) {
	dir, err := r.remoteDir(ctx)
	if err != nil {
		return "", err
	}
	remote := remoteJoin(dir, filepath.Base(local))
	f, err := os.Open(local)
	if err != nil {
		return "", fmt.Errorf("%s: push: %w", r.label, err)
	}
	defer f.Close()
	if err := r.upload(ctx, f, remote); err != nil {
		return "", r.fail("push "+remote, err)
	}
	if _, err := r.run(ctx, "chmod 755 "+shellPath(remote), nil); err != nil {
		return "", r.fail("push "+remote, err)
	}
	return remote, nil
}

// device runs the probes. They go over as a file: novacom carries one line per command.
func (r *remoteShell) device(ctx context.Context) (artifact.Device, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	dir, err := r.remoteDir(ctx)
	if err != nil {
		return artifact.Device{}, err
	}
	probe := remoteJoin(dir, "probe.sh")
	if err := r.upload(ctx, strings.NewReader(ProbeScript+sshProbeScript), probe); err != nil {
		return artifact.Device{}, r.fail("reading device facts", err)
	}
	out, err := r.run(ctx, "sh "+shellPath(probe), nil)
	if err != nil {
		return artifact.Device{}, r.fail("reading device facts", err)
	}
	d := ParseProbe(out)
	parseSSHProbe(out, &d)
	d.RunPrefix, d.Emulated = strings.Join(r.prefix, " "), emulates(r.prefix)
	return d, nil
}

// emulates reports whether a run prefix runs programs under an emulator (qemu-arm, qemu-aarch64, ...).
func emulates(prefix []string) bool {
	for _, w := range prefix {
		if strings.HasPrefix(filepath.Base(w), "qemu-") {
			return true
		}
	}
	return false
}

// kill kills a cancelled run's program on the device. A program cancelled before its wrapper printed the pid gets a
// few seconds to do so.
func (r *remoteShell) kill(pids *pidFilter) {
	select {
	case <-pids.got:
	case <-time.After(5 * time.Second):
	}
	pid := pids.Pid()
	if pid <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.run(ctx, killScript(pid), nil); err != nil {
		fmt.Fprintf(r.log, "%s: could not kill process %d: %v\n", r.label, pid, err)
	}
}

// cleanup removes the run's directory.
func (r *remoteShell) cleanup() error {
	r.dirMu.Lock()
	dir := r.dir
	r.dir = ""
	r.dirMu.Unlock()
	if dir == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := r.run(ctx, "rm -rf "+shellPath(dir), nil); err != nil {
		return r.fail("removing "+dir, err)
	}
	return nil
}
