// Package sshdtest starts a real OpenSSH server for tests: Debian's sshd in the foreground on 127.0.0.1, with its own
// config, host key and authorized_keys in a temporary directory, and the client files that reach it (an identity and
// a known_hosts file). Tests that need it skip, or fail in CI, when openssh-server is missing.
package sshdtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// Options shape the server.
type Options struct {
	// Legacy limits the server to the algorithms of an old device: diffie-hellman-group14-sha1, aes128-cbc,
	// hmac-sha1, and ssh-rsa host and user keys.
	Legacy bool
	// NoSFTP leaves out the sftp subsystem, as on devices whose sshd has none.
	NoSFTP bool
}

// Server is a running sshd.
type Server struct {
	Addr       string // 127.0.0.1:port
	User       string // the user it lets in: whoever runs the test
	Identity   string // private key file whose public key is authorized
	KnownHosts string // a known_hosts file holding the server's host key for Addr
	HostKey    string // the server's public host key, as in a .pub file
	Dir        string

	log syncBuffer
}

// Host is user@127.0.0.1:port, what --host takes.
func (s *Server) Host() string { return s.User + "@" + s.Addr }

// Log is what sshd has printed so far, for failure messages.
func (s *Server) Log() string { return s.log.String() }

// Start runs sshd until the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/sshd"); serr != nil {
			testenv.Missing(t, "sshd not found: apt-get install openssh-server (scripts/setup does it)")
		}
		sshd = "/usr/sbin/sshd"
	}
	keygen := testenv.Require(t, "ssh-keygen", "apt-get install openssh-client")
	if sshd, err = filepath.Abs(sshd); err != nil { // sshd re-executes itself and insists on an absolute path
		t.Fatal(err)
	}
	// The privilege separation directory; only root can make it, and only root needs it.
	if os.Geteuid() == 0 {
		os.MkdirAll("/run/sshd", 0o755)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{User: u.Username, Dir: t.TempDir()}
	keyType := "ed25519"
	if o.Legacy {
		keyType = "rsa"
	}
	hostKey, userKey := filepath.Join(s.Dir, "host_key"), filepath.Join(s.Dir, "id_"+keyType)
	for _, k := range []string{hostKey, userKey} {
		if out, err := exec.Command(keygen, "-q", "-t", keyType, "-N", "", "-C", "bench-bridge test", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	s.Identity = userKey
	pub, err := os.ReadFile(userKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	authorized := filepath.Join(s.Dir, "authorized_keys")
	if err := os.WriteFile(authorized, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	s.HostKey = strings.TrimSpace(string(hostPub))

	// A port that was free a moment ago can be taken by the time sshd binds it: try a few.
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		cfg := filepath.Join(s.Dir, "sshd_config")
		if err := os.WriteFile(cfg, []byte(config(port, hostKey, authorized, o)), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(sshd, "-D", "-e", "-f", cfg)
		cmd.Stdout, cmd.Stderr = &s.log, &s.log
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting sshd: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		s.Addr = fmt.Sprintf("127.0.0.1:%d", port)
		if waitReady(s.Addr, exited) {
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
			})
			break
		}
		cmd.Process.Kill()
		<-exited
		if attempt == 2 {
			t.Fatalf("sshd did not start:\n%s", s.Log())
		}
	}
	s.KnownHosts = filepath.Join(s.Dir, "known_hosts")
	s.AddKnownHost(t, s.Addr)
	return s
}

// AddKnownHost records the server's host key for addr (a proxy in front of it, for example) in KnownHosts.
func (s *Server) AddKnownHost(t testing.TB, addr string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	f, err := os.OpenFile(s.KnownHosts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fields := strings.Fields(s.HostKey)
	fmt.Fprintf(f, "[%s]:%s %s %s\n", host, port, fields[0], fields[1])
}

func config(port int, hostKey, authorized string, o Options) string {
	lines := []string{
		fmt.Sprintf("Port %d", port),
		"ListenAddress 127.0.0.1",
		"HostKey " + hostKey,
		"PidFile none",
		"AuthorizedKeysFile " + authorized,
		"UsePAM no",
		"StrictModes no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PubkeyAuthentication yes",
		"PermitRootLogin prohibit-password",
		"LogLevel ERROR",
	}
	if !o.NoSFTP {
		lines = append(lines, "Subsystem sftp internal-sftp")
	}
	if o.Legacy {
		lines = append(lines,
			"KexAlgorithms diffie-hellman-group14-sha1",
			"Ciphers aes128-cbc",
			"MACs hmac-sha1",
			"HostKeyAlgorithms ssh-rsa",
			"PubkeyAcceptedAlgorithms ssh-rsa",
		)
	}
	return strings.Join(lines, "\n") + "\n"
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitReady waits for the server's SSH banner.
func waitReady(addr string, exited <-chan struct{}) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(2 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "SSH-2.0-") {
				return true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// Proxy forwards loopback TCP connections to the server until Cut drops them all: a device that vanishes mid-run.
type Proxy struct {
	Addr  string
	l     net.Listener
	mu    sync.Mutex
	conns []net.Conn
	cut   bool
}

// Proxy starts a forwarder to the server and records the server's key for the proxy's address in KnownHosts.
func (s *Server) Proxy(t testing.TB) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: l.Addr().String(), l: l}
	s.AddKnownHost(t, p.Addr)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", s.Addr)
			if err != nil {
				c.Close()
				continue
			}
			if !p.track(c, up) {
				return
			}
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.Cut)
	return p
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	p.conns = append(p.conns, conns...)
	return true
}

// Cut closes the listener and every forwarded connection.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	p.l.Close()
	for _, c := range p.conns {
		c.Close()
	}
}

// syncBuffer is a bytes.Buffer that sshd's output and a failing test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
