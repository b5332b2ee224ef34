package devroot

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// dropbearFiles are the programs the board's root holds besides busybox: dropbear serves ssh, and no sftp-server
// is there, as on a small board.
const (
	busyboxPath  = "/bin/busybox"
	dropbearPath = "/usr/sbin/dropbear"
)

// BoardRoot returns the cached board root, making it on first use: busybox-static alone as the userland, with every
// applet installed as a link, dropbear with its shared libraries, a passwd line for root, device nodes of its own.
func BoardRoot(t testing.TB) string {
	t.Helper()
	requireRoot(t)
	if _, err := os.Stat(busyboxPath); err != nil {
		testenv.Missing(t, busyboxPath+" not found: apt-get install busybox-static (scripts/setup does it)")
	}
	if _, err := os.Stat(dropbearPath); err != nil {
		testenv.Missing(t, dropbearPath+" not found: apt-get install dropbear-bin (scripts/setup does it)")
	}
	testenv.Require(t, "dropbearkey", "apt-get install dropbear-bin (scripts/setup does it)")
	return cached(t, "board-busybox", makeBoardRoot)
}

func makeBoardRoot(dir string) error {
	for _, d := range []string{"bin", "sbin", "usr/bin", "usr/sbin", "etc/dropbear", "root/.ssh", "tmp", "proc", "sys", "var/log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	os.Chmod(filepath.Join(dir, "tmp"), 0o1777)
	os.Chmod(filepath.Join(dir, "root"), 0o700)
	os.Chmod(filepath.Join(dir, "root/.ssh"), 0o700)
	if err := mknodDevices(dir); err != nil {
		return err
	}
	if err := copyFile(busyboxPath, filepath.Join(dir, busyboxPath)); err != nil {
		return err
	}
	if err := run(timeoutShort, "chroot", dir, busyboxPath, "--install", "-s"); err != nil {
		return err
	}
	return installDaemon(dir, []string{dropbearPath}, map[string]string{
		"etc/passwd": "root:x:0:0:root:/root:/bin/sh\n",
		"etc/group":  "root:x:0:\n",
		"etc/shells": "/bin/sh\n",
	})
}

// installDaemon copies this machine's daemon programs and the libraries they need into the root at dir, and writes
// the root's account files.
func installDaemon(dir string, programs []string, etc map[string]string) error {
	for _, p := range programs {
		libs, err := sharedLibraries(p)
		if err != nil {
			return err
		}
		for _, f := range append(libs, p) {
			if err := copyFile(f, filepath.Join(dir, f)); err != nil {
				return err
			}
		}
	}
	for name, text := range etc {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sharedLibraries lists the files ldd names for a program, the dynamic loader included.
func sharedLibraries(program string) ([]string, error) {
	out, err := exec.Command("ldd", program).Output()
	if err != nil {
		return nil, fmt.Errorf("ldd %s: %w", program, err)
	}
	var libs []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		for _, f := range strings.Fields(sc.Text()) {
			if strings.HasPrefix(f, "/") {
				libs = append(libs, f)
			}
		}
	}
	return libs, nil
}

// copyFile copies src to dst with src's mode, making dst's directory.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Board is dropbear serving ssh on a loopback port, chrooted in an overlay of the board root, with a host key and an
// authorized key of the test's own.
type Board struct {
	*daemon
	Addr       string // 127.0.0.1:port
	Identity   string // the private key root logs in with
	KnownHosts string // holds the board's host key for Addr
}

// Host is root@Addr, what --host takes.
func (b *Board) Host() string { return "root@" + b.Addr }

// StartBoard starts dropbear in the foreground for the test and stops it at cleanup. ARM programs run on the board
// through binfmt_misc (RequireBinfmt).
func StartBoard(t testing.TB) *Board {
	t.Helper()
	return StartBoardWith(t)
}

// StartBoardWith is StartBoard on a board that also has the shared libraries of these programs of this machine (every
// file ldd names for them), as a board of this machine's Debian with their packages installed would: for programs
// that link this machine's libraries dynamically. The board of StartBoard has dropbear's alone.
func StartBoardWith(t testing.TB, programs ...string) *Board {
	t.Helper()
	RequireBinfmt(t)
	root := BoardRoot(t)
	keygen := testenv.Require(t, "ssh-keygen", "apt-get install openssh-client")
	d := newDaemon(t, root)
	for _, p := range programs {
		libs, err := sharedLibraries(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range libs {
			if err := copyFile(f, filepath.Join(d.upper, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	b := &Board{daemon: d}
	keys := t.TempDir()
	b.Identity = filepath.Join(keys, "id_ed25519")
	if err := run(timeoutShort, keygen, "-q", "-t", "ed25519", "-N", "", "-C", "bench-bridge board test", "-f", b.Identity); err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(b.Identity + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	sshDir := filepath.Join(d.upper, "root/.ssh")
	if err := os.MkdirAll(sshDir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(sshDir), 0o700)
	if err := os.WriteFile(filepath.Join(sshDir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	hostKey := filepath.Join(d.upper, "etc/dropbear/dropbear_ed25519_host_key")
	os.MkdirAll(filepath.Dir(hostKey), 0o755)
	out, err := exec.Command("dropbearkey", "-t", "ed25519", "-f", hostKey).CombinedOutput()
	if err != nil {
		t.Fatalf("dropbearkey: %v\n%s", err, out)
	}
	hostPub := ""
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "ssh-ed25519 ") {
			hostPub = strings.Join(strings.Fields(line)[:2], " ")
		}
	}
	if hostPub == "" {
		t.Fatalf("dropbearkey printed no public key:\n%s", out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	b.Addr = "127.0.0.1:" + strconv.Itoa(port)
	b.KnownHosts = filepath.Join(keys, "known_hosts")
	if err := os.WriteFile(b.KnownHosts, []byte(fmt.Sprintf("[127.0.0.1]:%d %s\n", port, hostPub)), 0o600); err != nil {
		t.Fatal(err)
	}
	// -F foreground, -E log to stderr, -s no password logins; one address, so no network namespace is needed.
	d.start(t, "", []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, dropbearPath, "-F", "-E", "-s",
		"-r", "/etc/dropbear/dropbear_ed25519_host_key", "-p", b.Addr)
	deadline := time.Now().Add(timeoutShort)
	for {
		if c, err := net.DialTimeout("tcp", b.Addr, time.Second); err == nil {
			c.SetDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "SSH-2.0-") {
				break
			}
		}
		if d.exited() || time.Now().After(deadline) {
			t.Fatalf("dropbear did not start:\n%s", d.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return b
}

// Running lists the processes on the board other than dropbear's listener, as "pid command".
func (b *Board) Running() []string { return b.running() }
