package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"
)

// SSH is a Linux device reachable over ssh: webOS devices, boards, servers. Its machine identity is the host and
// port, so that two target names for one host do not run in parallel.
type SSH struct {
	*device
}

// sshConn is the ssh transport: a session per command, files through sftp when the server has it and through cat
// otherwise (dropbear has no sftp-server).
type sshConn struct {
	client *ssh.Client
	stop   chan struct{} // ends the keepalive

	mu     sync.Mutex
	sftp   *sftp.Client
	noSFTP bool // the server has no sftp subsystem
}

// sshKeepalive is how often an idle connection is checked: a device that vanished without closing the socket is
// noticed within about twice this.
const sshKeepalive = 15 * time.Second

// NewSSH connects to the ssh target called name. The overrides win over the spec: host, identity, known_hosts,
// run prefix and workdir. A spec that names no toolchain has the device asked what it runs, and its toolchain picked
// from that; the pick and its reasons go to the log.
func NewSSH(ctx context.Context, name string, spec Spec, o Overrides) (*SSH, error) {
	host, identity, knownHosts := pick(o.Host, spec.Host), pick(o.Identity, spec.Identity), pick(o.KnownHosts, spec.KnownHosts)
	if host == "" {
		return nil, fmt.Errorf("target %s: no host: pass --host [user@]host[:port], or give [targets.%s] a host in the config", name, name)
	}
	addr, err := parseSSHHost(host)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	if _, err := PrefixWords(pick(o.RunPrefix, spec.RunPrefix)); err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
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
	c := &sshConn{client: client, stop: make(chan struct{})}
	go c.keepalive()
	r, err := newDevice(deviceParts{name: name, label: name + " (" + addr.String() + ")", machine: "ssh:" + addr.hostPort(),
		platform: Platform{Toolchain: spec.Toolchain}, workdir: pick(o.Workdir, spec.Workdir, "/tmp"),
		prefix: pick(o.RunPrefix, spec.RunPrefix), sysfs: spec.Sysfs, log: log, tr: c, probe: linuxProbe})
	if err != nil {
		c.close()
		return nil, err
	}
	if spec.Toolchain == "" {
		choice, err := askBoard(ctx, r)
		if err != nil {
			c.close()
			return nil, err
		}
		r.platform.Toolchain = choice.toolchain
		fmt.Fprintf(log, "ssh %s: %s\n", host, choice)
	}
	return &SSH{device: r}, nil
}

// pick returns the first non-empty value.
func pick(values ...string) string { return firstSet(values...) }

// expandHome reads a leading ~/ in a local path as the home directory, as ssh does.
func expandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

// keepalive closes the connection when the device stops answering, so that a run waiting on it fails.
func (c *sshConn) keepalive() {
	tick := time.NewTicker(sshKeepalive)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		reply := make(chan error, 1)
		go func() {
			_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
			reply <- err
		}()
		select {
		case err := <-reply:
			if err != nil {
				return
			}
		case <-time.After(2 * sshKeepalive):
			c.client.Close()
			return
		case <-c.stop:
			return
		}
	}
}

// session opens a session channel within its bound. A server that never answers the channel request is given up
// on altogether: the connection is closed, since nothing else on it would work either.
func (c *sshConn) session(ctx context.Context) (*ssh.Session, error) {
	var s *ssh.Session
	err := within(ctx, openOp, "opening an ssh session channel", func(ctx context.Context) (err error) {
		s, err = await(ctx, c.client.NewSession, func() { c.client.Close() }, func(s *ssh.Session) { s.Close() })
		return err
	})
	return s, err
}

// start opens a session and starts command in it. A channel that the server closes before it answers the exec
// request (dropbear does that, now and then, to the session opened right after a failed sftp subsystem) read none of
// stdin, and it is tried once more. Its command may still run, late and with no input: every command sent here must
// be harmless run twice that way (shellPush is).
func (c *sshConn) start(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (*ssh.Session, error) {
	for attempt := 0; ; attempt++ {
		s, err := c.session(ctx)
		if err != nil {
			return nil, err
		}
		s.Stdin, s.Stdout, s.Stderr = stdin, stdout, stderr
		err = s.Start(command)
		if err == nil {
			return s, nil
		}
		s.Close()
		if !errors.Is(err, io.EOF) || attempt > 0 {
			return nil, err
		}
	}
}

// exec implements transport. The login shell runs the command; when ctx ends, the session is closed (the core
// kills the program, since closing a session without a terminal leaves it running).
func (c *sshConn) exec(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	s, err := c.start(ctx, command, stdin, stdout, stderr)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		s.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // the connection is gone too
		}
		return 0, ctx.Err()
	}
	var exit *ssh.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit) && exit.Signal() != "":
		// The program exec'd in place of the shell, so sshd reports its signal: the same as sh's 128+N.
		if n := unix.SignalNum("SIG" + exit.Signal()); n != 0 {
			return 128 + int(n), nil
		}
		return 128 + int(syscall.SIGKILL), nil
	case errors.As(err, &exit):
		return exit.ExitStatus(), nil
	}
	return 0, err
}

// sftpClient opens the sftp subsystem once, within its bound; nil when the server has none.
func (c *sshConn) sftpClient(ctx context.Context) (*sftp.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sftp == nil && !c.noSFTP {
		var sc *sftp.Client
		err := within(ctx, openOp, "opening the sftp subsystem", func(ctx context.Context) (err error) {
			sc, err = await(ctx, func() (*sftp.Client, error) { return sftp.NewClient(c.client) }, nil,
				func(sc *sftp.Client) { sc.Close() })
			return err
		})
		var te *TimeoutError
		if errors.As(err, &te) || ctx.Err() != nil {
			return nil, err
		}
		if err != nil {
			c.noSFTP = true
			return nil, nil
		}
		c.sftp = sc
	}
	return c.sftp, nil
}

// sftpDo runs an sftp operation, which takes no context; when ctx ends first the sftp client is closed, which
// ends the operation, and the next one opens a new client.
func (c *sshConn) sftpDo(ctx context.Context, sc *sftp.Client, f func() error) error {
	return untilDone(ctx, f, func() {
		c.mu.Lock()
		if c.sftp == sc {
			c.sftp = nil
		}
		c.mu.Unlock()
		sc.Close()
	})
}

// push implements transport with sftp, or through cat when the server has no sftp.
func (c *sshConn) push(ctx context.Context, r io.Reader, remote string) error {
	sc, err := c.sftpClient(ctx)
	if err != nil {
		return err
	}
	if sc == nil {
		return shellPush(ctx, c, r, remote) // dropbear has no sftp-server
	}
	return c.sftpDo(ctx, sc, func() error {
		dst, err := sc.Create(remote)
		if err != nil {
			return err
		}
		if _, err := dst.ReadFrom(r); err != nil {
			dst.Close()
			return err
		}
		return dst.Close()
	})
}

// pull implements transport with sftp, or through cat.
func (c *sshConn) pull(ctx context.Context, remote string, w io.Writer) error {
	sc, err := c.sftpClient(ctx)
	if err != nil {
		return err
	}
	if sc == nil {
		return execOK(ctx, c, "cat "+shellPath(remote), nil, w)
	}
	return c.sftpDo(ctx, sc, func() error {
		f, err := sc.Open(remote)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteTo(w)
		return err
	})
}

// close implements transport.
func (c *sshConn) close() error {
	c.mu.Lock()
	sc := c.sftp
	c.sftp = nil
	c.mu.Unlock()
	if sc != nil {
		sc.Close()
	}
	close(c.stop)
	return c.client.Close()
}
