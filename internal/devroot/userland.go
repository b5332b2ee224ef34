package devroot

import (
	"bufio"
	"debug/elf"
	"fmt"
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

// An ARM userland root is a board's own userland: Debian's busybox for one ARM architecture, dynamically linked
// against Debian's glibc for it (the files of its libc6-*-cross package, the C library the cross compilers link
// with), served by this machine's OpenSSH sshd as the board root is served by dropbear. The shell and every command
// it runs are ARM programs that binfmt_misc runs through qemu-user-static: the board tells what it is only as a real
// one does, by the ELF header of its /bin/sh, its dynamic loader, and the kernel's /proc/sys/kernel/arch against
// what its emulated uname answers.

// Userland is one ARM architecture's userland.
type Userland struct {
	Arch    string // Debian's name of the architecture: arm64, armhf, armel
	Triplet string // the cross packages' triplet: /usr/TRIPLET/lib holds the C library
	Loader  string // the dynamic loader its programs name, in /lib
	Package string // the package that installs /usr/TRIPLET/lib
}

// The userlands of the three ARM architectures Debian has.
var (
	ARM64 = Userland{"arm64", "aarch64-linux-gnu", "ld-linux-aarch64.so.1", "libc6-arm64-cross"}
	ARMHF = Userland{"armhf", "arm-linux-gnueabihf", "ld-linux-armhf.so.3", "libc6-armhf-cross"}
	ARMEL = Userland{"armel", "arm-linux-gnueabi", "ld-linux.so.3", "libc6-armel-cross"}
)

// userlandSuite is the Debian release the busybox comes from: the one whose glibc the cross packages here carry.
const userlandSuite = "bookworm"

const sshdPath = "/usr/sbin/sshd"

// sshdHelpers are the programs OpenSSH 9.8 and later split out of sshd, which it runs for each connection.
var sshdHelpers = []string{"/usr/lib/openssh/sshd-session", "/usr/lib/openssh/sshd-auth"}

// UserlandRoot returns the cached root of u, making it on first use: busybox with every applet as a link, its C
// library, sshd with this machine's libraries, passwd lines for root (shell /bin/sh) and sshd's privilege
// separation user, device nodes of its own. Making it downloads busybox with apt-get, about 10 MB of package lists.
func UserlandRoot(t testing.TB, u Userland) string {
	t.Helper()
	requireRoot(t)
	RequireBinfmt(t) // busybox --install runs the ARM busybox
	if _, err := os.Stat(filepath.Join("/usr", u.Triplet, "lib", u.Loader)); err != nil {
		testenv.Missing(t, fmt.Sprintf("the %s C library is missing: apt-get install %s (scripts/setup does it)", u.Arch, u.Package))
	}
	if _, err := os.Stat(sshdPath); err != nil {
		testenv.Missing(t, sshdPath+" not found: apt-get install openssh-server (scripts/setup does it)")
	}
	for _, c := range []string{"apt-get", "dpkg-deb"} {
		testenv.Require(t, c, "a Debian system's apt and dpkg")
	}
	return cached(t, "userland-"+u.Arch, func(dir string) error { return makeUserlandRoot(dir, u) })
}

func makeUserlandRoot(dir string, u Userland) error {
	for _, d := range []string{"bin", "sbin", "usr/bin", "usr/sbin", "lib", "etc/ssh", "root/.ssh", "tmp", "proc", "sys", "run/sshd", "var/log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	os.Chmod(filepath.Join(dir, "tmp"), 0o1777)
	os.Chmod(filepath.Join(dir, "root"), 0o700)
	if err := mknodDevices(dir); err != nil {
		return err
	}
	pkg, err := os.MkdirTemp("", "bench-bridge-busybox-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(pkg)
	if err := unpackDebianPackage("busybox", u.Arch, pkg); err != nil {
		return err
	}
	busybox := filepath.Join(dir, "bin/busybox")
	if err := copyFile(filepath.Join(pkg, "bin/busybox"), busybox); err != nil {
		return err
	}
	if err := copyCLibrary(dir, busybox, u); err != nil {
		return err
	}
	if err := run(timeoutShort, "chroot", dir, "/bin/busybox", "--install", "-s"); err != nil {
		return err
	}
	programs := []string{sshdPath}
	for _, h := range sshdHelpers {
		if _, err := os.Stat(h); err == nil {
			programs = append(programs, h)
		}
	}
	return installDaemon(dir, programs, map[string]string{
		"etc/passwd": "root:x:0:0:root:/root:/bin/sh\nsshd:x:100:65534::/run/sshd:/usr/sbin/nologin\n",
		"etc/group":  "root:x:0:\nnogroup:x:65534:\n",
		"etc/shells": "/bin/sh\n",
	})
}

// copyCLibrary copies the loader and the libraries program needs from the cross package into the root's /lib, where
// the loader looks first.
func copyCLibrary(root, program string, u Userland) error {
	f, err := elf.Open(program)
	if err != nil {
		return err
	}
	needed, err := f.ImportedLibraries()
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", program, err)
	}
	for _, lib := range append(needed, u.Loader) {
		if err := copyFile(filepath.Join("/usr", u.Triplet, "lib", lib), filepath.Join(root, "lib", lib)); err != nil {
			return err
		}
	}
	return nil
}

// unpackDebianPackage downloads pkg for arch from Debian with apt-get and unpacks its files into dest. apt works in a
// directory of its own (sources list, package lists, cache): the machine's apt configuration and state are untouched.
func unpackDebianPackage(pkg, arch, dest string) error {
	work, err := os.MkdirTemp("", "bench-bridge-apt-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	for _, d := range []string{"lists/partial", "cache/archives/partial", "download"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			return err
		}
	}
	list := filepath.Join(work, "sources.list")
	line := fmt.Sprintf("deb [arch=%s signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n", arch, debianMirror, userlandSuite)
	if err := os.WriteFile(list, []byte(line), 0o644); err != nil {
		return err
	}
	apt := []string{"apt-get", "-q",
		"-o", "Dir::Etc::sourcelist=" + list,
		"-o", "Dir::Etc::sourceparts=-",
		"-o", "Dir::State::Lists=" + filepath.Join(work, "lists"),
		"-o", "Dir::Cache=" + filepath.Join(work, "cache"),
		"-o", "APT::Architectures::=" + arch,
		"-o", "APT::Get::List-Cleanup=0",
		"-o", "APT::Sandbox::User=root",
	}
	if err := run(timeoutRoot, apt[0], append(apt[1:], "update")...); err != nil {
		return err
	}
	download := exec.Command(apt[0], append(apt[1:], "download", pkg+":"+arch)...)
	download.Dir = filepath.Join(work, "download")
	if out, err := runWithDeadline(download, timeoutRoot); err != nil {
		return fmt.Errorf("apt-get download %s:%s: %v\n%s", pkg, arch, err, tail(out))
	}
	debs, _ := filepath.Glob(filepath.Join(download.Dir, "*.deb"))
	if len(debs) != 1 {
		return fmt.Errorf("apt-get download %s:%s left %d packages in %s", pkg, arch, len(debs), download.Dir)
	}
	return run(timeoutShort, "dpkg-deb", "-x", debs[0], dest)
}

// StartUserland starts the root of u's sshd in the foreground for the test, on a loopback port, with a host key and
// an authorized key of the test's own, and stops it at cleanup. sftp is there (sshd's internal one).
func StartUserland(t testing.TB, u Userland) *Board {
	t.Helper()
	root := UserlandRoot(t, u)
	keygen := testenv.Require(t, "ssh-keygen", "apt-get install openssh-client")
	d := newDaemon(t, root)
	b := &Board{daemon: d}
	keys := t.TempDir()
	b.Identity = filepath.Join(keys, "id_ed25519")
	hostKey := filepath.Join(d.upper, "etc/ssh/ssh_host_ed25519_key")
	if err := os.MkdirAll(filepath.Join(d.upper, "root/.ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(hostKey), 0o755)
	for _, k := range []string{b.Identity, hostKey} {
		if err := run(timeoutShort, keygen, "-q", "-t", "ed25519", "-N", "", "-C", "bench-bridge userland test", "-f", k); err != nil {
			t.Fatal(err)
		}
	}
	pub, err := os.ReadFile(b.Identity + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.upper, "root/.ssh/authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	b.Addr = "127.0.0.1:" + strconv.Itoa(port)
	b.KnownHosts = filepath.Join(keys, "known_hosts")
	fields := strings.Fields(string(hostPub))
	if err := os.WriteFile(b.KnownHosts, []byte(fmt.Sprintf("[127.0.0.1]:%d %s %s\n", port, fields[0], fields[1])), 0o600); err != nil {
		t.Fatal(err)
	}
	config := strings.Join([]string{
		"ListenAddress " + b.Addr,
		"HostKey /etc/ssh/ssh_host_ed25519_key",
		"AuthorizedKeysFile /root/.ssh/authorized_keys",
		"PidFile none",
		"UsePAM no",
		"StrictModes no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"Subsystem sftp internal-sftp",
		"LogLevel ERROR",
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(d.upper, "etc/ssh/sshd_config"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	// -D foreground, -e log to stderr; one address, so no network namespace is needed.
	d.start(t, "", []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, sshdPath, "-D", "-e", "-f", "/etc/ssh/sshd_config")
	if err := waitForBanner(d, b.Addr); err != nil {
		t.Fatalf("sshd did not start: %v\n%s", err, d.Log())
	}
	return b
}

// waitForBanner waits until the daemon answers at addr with an SSH banner.
func waitForBanner(d *daemon, addr string) error {
	deadline := time.Now().Add(timeoutShort)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.SetDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "SSH-2.0-") {
				return nil
			}
		}
		if d.exited() {
			return fmt.Errorf("it exited")
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no banner at %s within %s", addr, timeoutShort)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
