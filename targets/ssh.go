package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
)

// SSH runs programs on a Linux device reachable over ssh: webOS devices, boards, servers. Programs go into a fresh
// directory under the workdir, uploaded with sftp when the server has it and through a shell otherwise.
type SSH struct {
	remoteShell
	name   string
	addr   sshAddr
	tc     build.Toolchain
	client *ssh.Client
	stop   chan struct{} // ends the keepalive

	mu     sync.Mutex
	sftp   *sftp.Client
	noSFTP bool // the server has no sftp subsystem
	closed bool
}

// sshKeepalive is how often an idle connection is checked: a device that vanished without closing the socket is
// noticed within about twice this.
const sshKeepalive = 15 * time.Second

// Machine implements the optional machine identity: two target names for one host share it, so their runs go one
// after another.
func (s *SSH) Machine() string { return "ssh:" + net.JoinHostPort(s.addr.Host, s.addr.Port) }

// NewSSH connects to the ssh target called name. The overrides win over the config: host, identity, known_hosts,
// run prefix and workdir.
func NewSSH(ctx context.Context, name string, spec config.Target, o Overrides) (*SSH, error) {
	host, identity, knownHosts := pick(o.Host, spec.Host), pick(o.Identity, spec.Identity), pick(o.KnownHosts, spec.KnownHosts)
	if host == "" {
		return nil, fmt.Errorf("target %s: no host: pass --host [user@]host[:port], or give [targets.%s] a host in the config", name, name)
	}
	addr, err := parseSSHHost(host)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	tc := build.Host()
	if spec.Toolchain != "" {
		if tc, err = build.ToolchainNamed(spec.Toolchain); err != nil {
			return nil, fmt.Errorf("target %s: %w", name, err)
		}
	}
	home, _ := os.UserHomeDir()
	if knownHosts == "" {
		knownHosts = filepath.Join(home, ".ssh", "known_hosts")
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	hk, err := newHostKeys(expandHome(knownHosts, home), o.AcceptHostKey, log)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	if identity != "" {
		identity = expandHome(identity, home)
	}
	client, err := dialSSH(ctx, addr, hk, identity, spec.LegacyAlgorithms)
	if err != nil {
		return nil, fmt.Errorf("target %s (%s): %w", name, addr, err)
	}
	t := &SSH{name: name, addr: addr, tc: tc, client: client, stop: make(chan struct{})}
	t.remoteShell = remoteShell{label: name + " (" + addr.String() + ")", workdir: pick(o.Workdir, spec.Workdir, "/tmp"),
		prefix: strings.Fields(pick(o.RunPrefix, spec.RunPrefix)), log: log, run: t.session, upload: t.upload}
	go t.keepalive()
	return t, nil
}

// pick returns the first non-empty value.
func pick(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// expandHome reads a leading ~/ in a local path as the home directory, as ssh does.
func expandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

// keepalive closes the connection when the device stops answering, so that a run waiting on it fails.
func (t *SSH) keepalive() {
	tick := time.NewTicker(sshKeepalive)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
		}
		reply := make(chan error, 1)
		go func() {
			_, _, err := t.client.SendRequest("keepalive@openssh.com", true, nil)
			reply <- err
		}()
		select {
		case err := <-reply:
			if err != nil {
				return
			}
		case <-time.After(2 * sshKeepalive):
			t.client.Close()
			return
		case <-t.stop:
			return
		}
	}
}

// Name implements Target.
func (t *SSH) Name() string { return t.name }

// Toolchain implements Target.
func (t *SSH) Toolchain() build.Toolchain { return t.tc }

// session runs one shell command to completion, with stdin, and returns stdout.
func (t *SSH) session(ctx context.Context, cmd string, stdin io.Reader) ([]byte, error) {
	s, err := t.client.NewSession()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var stdout, stderr bytes.Buffer
	s.Stdin, s.Stdout, s.Stderr = stdin, &stdout, &stderr
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	if err := s.Run(cmd); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var exit *ssh.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("%s: exit status %d: %s", cmd, exit.ExitStatus(), strings.TrimSpace(stderr.String()))
		}
		return nil, err
	}
	return stdout.Bytes(), nil
}

// sftpClient opens the sftp subsystem once; nil when the server has none.
func (t *SSH) sftpClient() *sftp.Client {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sftp == nil && !t.noSFTP {
		c, err := sftp.NewClient(t.client)
		if err != nil {
			t.noSFTP = true
			return nil
		}
		t.sftp = c
	}
	return t.sftp
}

// Push implements Target: the binary goes into the run's directory, executable.
func (t *SSH) Push(ctx context.Context, local string) (string, error) { return t.push(ctx, local) }

// upload copies r to remote with sftp, or through cat when the server has no sftp.
func (t *SSH) upload(ctx context.Context, r io.Reader, remote string) error {
	c := t.sftpClient()
	if c == nil {
		_, err := t.session(ctx, "cat > "+shellPath(remote), r)
		return err
	}
	dst, err := c.Create(remote)
	if err != nil {
		return err
	}
	if _, err := dst.ReadFrom(r); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// Pull implements Target.
func (t *SSH) Pull(ctx context.Context, remote, local string) error {
	var data []byte
	var err error
	if c := t.sftpClient(); c != nil {
		var f *sftp.File
		if f, err = c.Open(remote); err == nil {
			data, err = io.ReadAll(f)
			f.Close()
		}
	} else {
		data, err = t.session(ctx, "cat "+shellPath(remote), nil)
	}
	if err != nil {
		return t.fail("pull "+remote, err)
	}
	return os.WriteFile(local, data, 0o644)
}

// Run implements Target. The program runs under the run prefix in the run's directory; when ctx ends, its process
// group is killed on the device through a second session, since closing a session without a terminal leaves the
// program running there.
func (t *SSH) Run(ctx context.Context, program string, args []string, stdout, stderr io.Writer) error {
	dir, err := t.remoteDir(ctx)
	if err != nil {
		return err
	}
	s, err := t.client.NewSession()
	if err != nil {
		return t.fail("starting "+program, err)
	}
	defer s.Close()
	pids := newPidFilter(stdout)
	s.Stdout, s.Stderr = pids, stderr
	if err := s.Start(runScript(dir, t.prefix, program, args)); err != nil {
		return t.fail("starting "+program, err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err := <-done:
		return t.exitError(program, err)
	case <-ctx.Done():
	}
	t.kill(pids)
	s.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // the connection is gone too
	}
	return fmt.Errorf("%s: %s: %w", t, program, ctx.Err())
}

// exitError maps a finished session to nil, *ExitError, or a transport error naming the device.
func (t *SSH) exitError(program string, err error) error {
	var exit *ssh.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.Signal() != "":
		return &ExitError{Status: -1, Signal: "SIG" + exit.Signal()}
	case errors.As(err, &exit):
		return &ExitError{Status: exit.ExitStatus()}
	}
	return t.fail("connection lost while running "+program, err)
}

// Device implements Target: the common probe and the extra facts, read through the device's shell.
func (t *SSH) Device(ctx context.Context) (artifact.Device, error) { return t.device(ctx) }

// Close implements Target: it removes the run's directory and disconnects.
func (t *SSH) Close() error {
	t.mu.Lock()
	closed, sf := t.closed, t.sftp
	t.closed = true
	t.mu.Unlock()
	if closed {
		return nil
	}
	err := t.cleanup()
	if sf != nil {
		sf.Close()
	}
	close(t.stop)
	t.client.Close()
	return err
}
