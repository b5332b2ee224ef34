package devroot

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// daemon is a device's daemon running chrooted in a copy-on-write view of a cached root: an overlay whose upper
// layer is the test's own, in a mount and pid namespace of its own (so its mounts and every process it started go
// away with it), optionally in a network namespace.
type daemon struct {
	root  string // the cached root, never written to
	upper string // what the test's device changed or was given (keys)
	cmd   *exec.Cmd
	log   string // the file its output goes to
	done  chan struct{}
	once  sync.Once
}

// newDaemon prepares an overlay of root; the caller may put files into d.upper before start.
func newDaemon(t testing.TB, root string) *daemon {
	t.Helper()
	for _, c := range []string{"unshare", "chroot", "mount"} {
		testenv.Require(t, c, "apt-get install util-linux coreutils mount")
	}
	dir := t.TempDir()
	d := &daemon{root: root, upper: filepath.Join(dir, "upper"), done: make(chan struct{})}
	for _, sub := range []string{"upper", "work", "merged"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// start runs argv chrooted in the overlay, with env as its whole environment. netns, when set, is the network
// namespace it runs in. The daemon is killed at cleanup, and with it every process of its pid namespace.
func (d *daemon) start(t testing.TB, netns string, env []string, argv ...string) {
	t.Helper()
	dir := filepath.Dir(d.upper)
	merged := filepath.Join(dir, "merged")
	script := strings.Join([]string{
		"set -e",
		"mount -t overlay overlay -o " + shq("lowerdir="+d.root+",upperdir="+d.upper+",workdir="+filepath.Join(dir, "work")) + " " + shq(merged),
		"mount -t proc proc " + shq(merged+"/proc"),
		"mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts " + shq(merged+"/dev/pts"),
		"mount -t sysfs -o ro sysfs " + shq(merged+"/sys") + " || true",
		"exec chroot " + shq(merged) + " /usr/bin/env -i " + shWords(env) + " " + shWords(argv),
	}, "\n")
	args := append([]string{"unshare"}, unshareMounts()...)
	args = append(args, "--pid", "--fork", "--kill-child", "sh", "-c", script)
	if netns != "" {
		args = append([]string{"nsenter", "--net=/run/netns/" + netns, "--"}, args...)
	}
	d.cmd = exec.Command(args[0], args[1:]...)
	d.log = filepath.Join(dir, "daemon.log")
	logFile, err := os.Create(d.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	d.cmd.Stdout, d.cmd.Stderr = logFile, logFile
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", argv[0], err)
	}
	go func() { d.cmd.Wait(); close(d.done) }()
	t.Cleanup(d.stop)
}

// stop kills the daemon's namespace: unshare's child is pid 1 there, and the kernel kills every other process of a pid
// namespace whose first process dies; the mounts go with the mount namespace.
func (d *daemon) stop() {
	d.once.Do(func() {
		if pid := d.chrootPid(); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		deadline := time.After(timeoutShort)
		select {
		case <-d.done:
		case <-deadline:
		}
		// The kernel kills the rest of the namespace after its first process, not at once.
		for len(d.processes()) > 0 {
			select {
			case <-deadline:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
}

// exited reports whether the daemon has ended.
func (d *daemon) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// chrootPid is the host pid of the chrooted daemon, pid 1 of its namespace; 0 when it is gone.
func (d *daemon) chrootPid() int {
	for _, pid := range d.processes() {
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == "NSpid:" && f[len(f)-1] == "1" {
				return pid
			}
		}
	}
	return 0
}

// processes lists the host pids of every process running in the device's root.
func (d *daemon) processes() []int {
	merged := filepath.Join(filepath.Dir(d.upper), "merged")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// The link names the root from the top of its filesystem when this process is itself chrooted (a
		// fresh-machine root): the daemon's mounts are not reachable from here, so the path ends with merged.
		if r, err := os.Readlink(filepath.Join("/proc", e.Name(), "root")); err == nil && (r == merged || strings.HasSuffix(r, merged)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// running lists the processes in the root but its first, as "pid command".
func (d *daemon) running() []string {
	var list []string
	self := d.chrootPid()
	for _, pid := range d.processes() {
		if pid == self {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		list = append(list, strconv.Itoa(pid)+" "+strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " "))
	}
	return list
}

// Root is the device's file system as the host sees it, through its daemon's /proc entry; "" once it is gone.
func (d *daemon) Root() string {
	if pid := d.chrootPid(); pid > 0 {
		return fmt.Sprintf("/proc/%d/root", pid)
	}
	return ""
}

// Log is what the daemon printed so far.
func (d *daemon) Log() string {
	b, _ := os.ReadFile(d.log)
	return string(b)
}

// shq quotes one word for sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shq(w)
	}
	return strings.Join(q, " ")
}
