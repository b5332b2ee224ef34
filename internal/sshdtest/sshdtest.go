// Package sshdtest starts a real OpenSSH server for tests: Debian's sshd in the foreground on 127.0.0.1, with its own
// config, host key and authorized_keys in a temporary directory, and the client files that reach it (an identity and
// a known_hosts file). Tests that need it skip, or fail in CI, when openssh-server is missing.
package sshdtest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// Options shape the server.
type Options struct {
	// Legacy limits the server to the algorithms of an old device: diffie-hellman-group14-sha1, aes128-cbc,
	// hmac-sha1, and ssh-rsa host and user keys.
	Legacy bool
	// NoSFTP leaves out the sftp subsystem, as on devices whose sshd has none.
	NoSFTP bool
	// HostCertificate has the server present its host key as a certificate signed by a CA of its own (CAKey), valid
	// for the address it listens on.
	HostCertificate bool
	// Namespace runs sshd in a network namespace the test made, listening on ListenAddr (an address of that
	// namespace) and Port (default 22).
	Namespace  *Namespace
	ListenAddr string
	Port       int
}

// Server is a running sshd.
type Server struct {
	Addr       string // 127.0.0.1:port
	User       string // the user it lets in: whoever runs the test
	Identity   string // private key file whose public key is authorized
	KnownHosts string // a known_hosts file holding the server's host key for Addr
	HostKey    string // the server's public host key, as in a .pub file
	CAKey      string // with HostCertificate, the CA's public key that signed the host certificate
	Dir        string

	log testenv.Buffer
}

// Host is user@127.0.0.1:port, what --host takes.
func (s *Server) Host() string { return s.User + "@" + s.Addr }

// Log is what sshd has printed so far, for failure messages.
func (s *Server) Log() string { return s.log.String() }

// Start runs sshd until the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	testenv.SkipInShort(t, "starts a real sshd")
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
	listen := o.ListenAddr
	if listen == "" {
		listen = "127.0.0.1"
	}
	if o.HostCertificate {
		s.CAKey = signHostKey(t, keygen, s.Dir, hostKey, listen)
	}

	// A port that was free a moment ago can be taken by the time sshd binds it: try a few. In a namespace of the
	// test's own every port is free.
	for attempt := 0; ; attempt++ {
		port, command, dial := o.Port, []string{sshd}, net.DialTimeout
		if o.Namespace == nil {
			port = freePort(t)
		} else {
			if port == 0 {
				port = 22
			}
			command, dial = o.Namespace.Command(sshd), o.Namespace.DialTimeout
		}
		cfg := filepath.Join(s.Dir, "sshd_config")
		if err := os.WriteFile(cfg, []byte(config(listen, port, hostKey, authorized, o)), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(command[0], append(command[1:], "-D", "-e", "-f", cfg)...)
		cmd.Stdout, cmd.Stderr = &s.log, &s.log
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting sshd: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		s.Addr = net.JoinHostPort(listen, strconv.Itoa(port))
		if waitReady(s.Addr, dial, exited) {
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
			})
			break
		}
		cmd.Process.Kill()
		<-exited
		if attempt == 2 || o.Namespace != nil {
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
	AppendLine(t, s.KnownHosts, s.KnownHostsLine(addr))
}

// KnownHostsLine is the known_hosts line for the server's host key at addr, written as OpenSSH writes it.
func (s *Server) KnownHostsLine(addr string) string {
	fields := strings.Fields(s.HostKey)
	return knownhosts.Normalize(addr) + " " + fields[0] + " " + fields[1]
}

// AppendLine adds a line to a file (a known_hosts or an ssh config), making it and its directory when needed.
func AppendLine(t testing.TB, file, line string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		t.Fatal(err)
	}
}

// signHostKey makes a CA and signs the host key with it for principal, as an administrator does with
// ssh-keygen -s; sshd finds the certificate next to the key. It returns the CA's public key.
func signHostKey(t testing.TB, keygen, dir, hostKey, principal string) string {
	t.Helper()
	ca := filepath.Join(dir, "host_ca")
	for _, args := range [][]string{
		{"-q", "-t", "ed25519", "-N", "", "-C", "bench-bridge test CA", "-f", ca},
		{"-q", "-s", ca, "-I", "bench-bridge test host", "-h", "-n", principal, "-V", "-1h:+1d", hostKey + ".pub"},
	} {
		if out, err := exec.Command(keygen, args...).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	pub, err := os.ReadFile(ca + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(pub))
	return f[0] + " " + f[1]
}

func config(listen string, port int, hostKey, authorized string, o Options) string {
	lines := []string{
		fmt.Sprintf("Port %d", port),
		"ListenAddress " + listen,
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
	if o.HostCertificate {
		lines = append(lines, "HostCertificate "+hostKey+"-cert.pub")
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
func waitReady(addr string, dial func(network, addr string, timeout time.Duration) (net.Conn, error), exited <-chan struct{}) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		c, err := dial("tcp", addr, time.Second)
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
