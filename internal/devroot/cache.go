// Package devroot gives tests real device software to talk to: Debian's adbd in a debootstrap'd trixie root with an
// Android-like userland, and a small board of busybox and dropbear, each running ARM programs through binfmt_misc
// and qemu-user-static as the kernel runs foreign binaries. The roots are made once per machine in the cache
// directory; each test starts its own daemon in namespaces of its own and stops it at cleanup.
package devroot

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// timeoutShort bounds a step that takes a moment (a mount, ip, a key); timeoutRoot bounds making a whole root from
// the Debian mirror.
const (
	timeoutShort = 30 * time.Second
	timeoutRoot  = 15 * time.Minute
)

// completeMarker is written last into a root: a root without it was interrupted and is made again.
const completeMarker = ".bench-bridge-complete"

// rootVersion changes when what a root holds changes, so that an old cached root is not used.
const rootVersion = "4"

// cached returns the root called name in the cache, making it with make when it is missing or incomplete. A file lock
// keeps parallel test packages from making it twice; make works in a fresh directory renamed into place.
func cached(t testing.TB, name string, make func(dir string) error) string {
	t.Helper()
	cache, err := build.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	roots := filepath.Join(cache, "roots")
	if err := os.MkdirAll(roots, 0o755); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(roots, name+"-v"+rootVersion)
	if complete(root) {
		return root
	}
	lock, err := os.OpenFile(filepath.Join(roots, name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if complete(root) { // made by another process while this one waited
		return root
	}
	start := time.Now()
	old, _ := filepath.Glob(filepath.Join(roots, name+"-v*"))
	for _, dir := range old {
		if err := removeRoot(dir); err != nil {
			t.Fatal(err)
		}
	}
	tmp := root + ".new"
	for _, dir := range []string{root, tmp} {
		if err := removeRoot(dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := make(tmp); err != nil {
		removeRoot(tmp)
		t.Fatalf("making the %s root: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, root); err != nil {
		t.Fatal(err)
	}
	t.Logf("made the %s root in %s (%s)", name, root, time.Since(start).Round(time.Second))
	return root
}

func complete(root string) bool {
	_, err := os.Stat(filepath.Join(root, completeMarker))
	return err == nil
}

// removeRoot deletes a root, refusing when anything is still mounted under it: rm -rf through a live mount of /proc
// or /dev would reach into this machine.
func removeRoot(dir string) error {
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(mounts), "\n") {
		if f := strings.Fields(line); len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			return fmt.Errorf("cannot remove %s: %s is mounted", dir, f[4])
		}
	}
	return os.RemoveAll(dir)
}

// requireRoot fails (in CI) or skips a test that cannot make roots: making them needs root (chroot, mknod, mount).
func requireRoot(t testing.TB) {
	t.Helper()
	testenv.SkipInShort(t, "starts a device in a root of its own")
	if os.Geteuid() != 0 {
		testenv.Missing(t, "device roots need root (chroot, mknod, namespaces): run the tests as root")
	}
}

// mknodDevices gives a root device nodes of its own: this machine's /dev is never bind-mounted into a root where
// packages are installed, since a maintainer script can replace the host's /dev/null through such a mount.
func mknodDevices(root string) error {
	dev := filepath.Join(root, "dev")
	if err := os.MkdirAll(filepath.Join(dev, "pts"), 0o755); err != nil {
		return err
	}
	for _, n := range []struct {
		name         string
		major, minor uint32
	}{{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0}} {
		p := filepath.Join(dev, n.name)
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			continue
		}
		os.Remove(p)
		if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, int(mkdev(n.major, n.minor))); err != nil {
			return fmt.Errorf("mknod %s: %w", p, err)
		}
		if err := os.Chmod(p, 0o666); err != nil { // mknod's mode is cut by the umask
			return err
		}
	}
	// The pty master comes from the devpts instance mounted at start (newinstance), never from the host's.
	os.Remove(filepath.Join(dev, "ptmx"))
	return os.Symlink("pts/ptmx", filepath.Join(dev, "ptmx"))
}

func mkdev(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor&0xff) | uint64(minor&^0xff)<<12
}

// run runs a command with a deadline and returns its error with its output.
func run(timeout time.Duration, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	out, err := runWithDeadline(cmd, timeout)
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(out))
	}
	return nil
}

// runWithDeadline runs cmd, killing it (and its process group) after timeout.
func runWithDeadline(cmd *exec.Cmd, timeout time.Duration) ([]byte, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	timer := time.AfterFunc(timeout, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err := cmd.Wait()
	if !timer.Stop() {
		err = fmt.Errorf("killed after %s: %v", timeout, err)
	}
	return []byte(out.String()), err
}

// tail keeps the end of a long output for an error message.
func tail(out []byte) string {
	const max = 4000
	if len(out) > max {
		return "..." + string(out[len(out)-max:])
	}
	return string(out)
}

// unshareMounts are unshare's options for a mount namespace whose mounts stay out of this machine's. Mounts are made
// private from / down; where / is not a mount point (a chroot such as a fresh-machine root made by debootstrap)
// that fails with EINVAL, and the propagation is left as it is: the mounts under such a root are then on the
// enclosing machine's mount of its filesystem, which is private where nothing made it shared (systemd does, for /).
func unshareMounts() []string {
	propagation := "private"
	if !rootIsMountPoint() {
		propagation = "unchanged"
	}
	return []string{"--mount", "--propagation", propagation}
}

// rootIsMountPoint reports whether / is a mount point as this process sees it (mountinfo's fifth field).
func rootIsMountPoint() bool {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == "/" {
			return true
		}
	}
	return false
}
