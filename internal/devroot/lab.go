package devroot

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// LabHost is a lab host: a machine of its own (a network namespace linked to this machine by a veth pair) with phones
// attached that only it reaches, and Debian's real adb server serving them on its link to this machine, as `adb -a`
// serves a lab. This machine reaches the phones only through that server.
type LabHost struct {
	// Addr is the lab host's address on its link to this machine, and Port its adb server's port: adb's -H and -P.
	Addr string
	Port int
	// Phones are real adbd, as StartAndroid starts them; each Serial is the phone's address as the lab host
	// reaches it, which this machine cannot.
	Phones []*Android
	ns     *sshdtest.Namespace
	home   string // the adb server's HOME, where its key lives
}

// labPort is the lab host's adb server port: adb's default, free in a namespace of the lab's own.
const labPort = 5037

// phoneSeq numbers the names this process gives the phones' namespaces.
var phoneSeq atomic.Int32

// StartLabHost starts a lab host with n phones and stops it at cleanup.
func StartLabHost(t testing.TB, n int) *LabHost {
	t.Helper()
	testenv.Require(t, "adb", "apt-get install adb (scripts/setup does it)")
	testenv.Require(t, "nsenter", "apt-get install util-linux")
	lab := &LabHost{ns: sshdtest.NewNamespace(t), Port: labPort, home: t.TempDir()}
	_, lab.Addr = sshdtest.Link(t, nil, lab.ns)
	lab.startServer(t)
	for range n {
		lab.Phones = append(lab.Phones, lab.attach(t, StartAndroid(t)))
	}
	return lab
}

// startServer runs the adb server in the lab's namespace, listening on every interface (-a), until cleanup.
func (l *LabHost) startServer(t testing.TB) {
	t.Helper()
	logFile, err := os.Create(filepath.Join(l.home, "adb-server.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	argv := l.ns.Command("adb", "-a", "-P", strconv.Itoa(l.Port), "server", "nodaemon")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = l.env()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the lab's adb server: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-done:
		case <-time.After(timeoutShort):
		}
	})
	addr := net.JoinHostPort(l.Addr, strconv.Itoa(l.Port))
	for deadline := time.Now().Add(timeoutShort); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
		select {
		case <-done:
			t.Fatalf("the lab's adb server ended:\n%s", l.ServerLog())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lab's adb server does not answer at %s:\n%s", addr, l.ServerLog())
		}
	}
}

// env is the environment of the lab's adb commands: a HOME of the lab's own.
func (l *LabHost) env() []string {
	return append(os.Environ(), "HOME="+l.home, "ANDROID_USER_HOME="+filepath.Join(l.home, ".android"))
}

// ServerLog is what the lab's adb server printed so far.
func (l *LabHost) ServerLog() string {
	b, _ := os.ReadFile(filepath.Join(l.home, "adb-server.log"))
	return string(b)
}

// ADB runs adb ARGS on the lab host, against its server, with a deadline.
func (l *LabHost) ADB(args ...string) (string, error) {
	argv := l.ns.Command(append([]string{"adb", "-P", strconv.Itoa(l.Port)}, args...)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = l.env()
	out, err := runWithDeadline(cmd, timeoutShort)
	return string(out), err
}

// attach moves a phone from this machine to the lab host, as a cable moved from one USB port to another: its link to
// this machine is cut, a link to the lab host made instead, and the lab's adb server connects to it.
func (l *LabHost) attach(t testing.TB, a *Android) *Android {
	t.Helper()
	old, port, err := net.SplitHostPort(a.Serial)
	if err != nil {
		t.Fatal(err)
	}
	pid := a.chrootPid()
	if pid == 0 {
		t.Fatalf("adbd of %s is gone:\n%s", a.Serial, a.Log())
	}
	phone := &sshdtest.Namespace{Name: fmt.Sprintf("bbphone-%d-%d", os.Getpid(), phoneSeq.Add(1))}
	if err := run(timeoutShort, "ip", "netns", "attach", phone.Name, strconv.Itoa(pid)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run(timeoutShort, "ip", "netns", "delete", phone.Name) })
	// The phone's end of its link to this machine holds its old address; deleting it deletes the pair.
	argv := phone.Command("ip", "-o", "-4", "addr", "show", "to", old)
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	f := strings.Fields(string(out))
	if err != nil || len(f) < 2 {
		t.Fatalf("the phone's link to this machine (%s): %v: %q", old, err, out)
	}
	dev, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@") // a veth shows as NAME@ifN
	if err := run(timeoutShort, "nsenter", "--net=/run/netns/"+phone.Name, "--", "ip", "link", "delete", dev); err != nil {
		t.Fatal(err)
	}
	// Only its loopback is left: no address of this machine's links (nor a route beyond them) reaches the phone.
	argv = phone.Command("ip", "-o", "-4", "addr", "show")
	if out, err := exec.Command(argv[0], argv[1:]...).Output(); err != nil || strings.Count(string(out), " inet ") != 1 ||
		!strings.Contains(string(out), " inet 127.0.0.1/") {
		t.Fatalf("the phone keeps addresses besides its loopback after its link to this machine was cut (%v):\n%s", err, out)
	}
	_, addr := sshdtest.Link(t, l.ns, phone)
	moved := &Android{daemon: a.daemon, Serial: net.JoinHostPort(addr, port)}
	// adb connect returns once the phone answers; the server then lists it as a device.
	if out, err := l.ADB("connect", moved.Serial); err != nil {
		t.Fatalf("adb connect %s on the lab host: %v\n%s", moved.Serial, err, out)
	}
	var list string
	for deadline := time.Now().Add(timeoutShort); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		list, _ = l.ADB("devices")
		for _, line := range strings.Split(list, "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == moved.Serial && f[1] == "device" {
				return moved
			}
		}
	}
	t.Fatalf("the lab's adb server never listed %s as a device:\n%s\nserver:\n%s", moved.Serial, list, l.ServerLog())
	return nil
}
