package main

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/adbsim"
	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// freezer forwards connections to addr until Freeze, after which the connections it carries stay open and carry
// nothing: a device that stops answering without closing anything. New connections are forwarded again.
type freezer struct {
	Addr   string
	mu     sync.Mutex
	frozen []net.Conn
	conns  []net.Conn
}

func newFreezer(t *testing.T, addr string) *freezer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{Addr: l.Addr().String()}
	t.Cleanup(func() {
		l.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range append(f.conns, f.frozen...) {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			f.mu.Lock()
			f.conns = append(f.conns, c, up)
			f.mu.Unlock()
			go f.pipe(up, c)
			go f.pipe(c, up)
		}
	}()
	return f
}

// pipe copies until the connection is frozen, then holds it.
func (f *freezer) pipe(dst, src net.Conn) {
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		f.mu.Lock()
		frozen := f.isFrozen(src)
		f.mu.Unlock()
		if frozen {
			return
		}
		if n > 0 {
			dst.Write(buf[:n])
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

func (f *freezer) isFrozen(c net.Conn) bool {
	for _, x := range f.frozen {
		if x == c {
			return true
		}
	}
	return false
}

// Freeze stops every connection open now.
func (f *freezer) Freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frozen = append(f.frozen, f.conns...)
	f.conns = nil
}

// TestSecondSignalQuitsAtOnce interrupts a run on an ssh device that has stopped answering, so that the cleanup the
// first signal starts (killing the program, removing the run's directory) hangs on it until its bounds; the second
// signal ends bench-bridge at once, with the status of that signal. The directory left behind is removed at the next
// connection to the device.
func TestSecondSignalQuitsAtOnce(t *testing.T) {
	requireCC(t)
	bin := cli(t)
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		code int
	}{{"SIGINT", syscall.SIGINT, 130}, {"SIGTERM", syscall.SIGTERM, 143}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each signal on a device of its own: most of each is waiting on bounds
			srv := sshdtest.Start(t, sshdtest.Options{})
			dev := newFreezer(t, srv.Addr)
			srv.AddKnownHost(t, dev.Addr)
			dir := t.TempDir()
			workdir := filepath.Join(dir, "device")
			cfg := filepath.Join(dir, "bench-bridge.toml")
			os.WriteFile(cfg, []byte("[targets.board]\nkind = \"ssh\"\n"), 0o644)
			flags := []string{"--config", cfg, "--host", srv.User + "@" + dev.Addr, "--identity", srv.Identity,
				"--known-hosts", srv.KnownHosts, "--workdir", workdir}
			// The cases after the first take seconds: the device is frozen while one of them runs.
			cmd := exec.Command(bin, append([]string{"floor", "board", "--runs", "1", "--samples", "3", "--min-time", "50ms",
				"--out", filepath.Join(dir, "floor.json")}, flags...)...)
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := make(chan string, 100)
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
				io.Copy(io.Discard, stderr)
			}()
			var log []string
			waitFor := func(what string) {
				t.Helper()
				timeout := time.After(5 * time.Minute) // a cold cache builds QuickJS first
				for {
					select {
					case l, ok := <-lines:
						if !ok {
							t.Fatalf("bench-bridge ended before %q:\n%s", what, strings.Join(log, "\n"))
						}
						log = append(log, l)
						if strings.Contains(l, what) {
							return
						}
					case <-timeout:
						cmd.Process.Kill()
						t.Fatalf("no %q from bench-bridge:\n%s", what, strings.Join(log, "\n"))
					}
				}
			}
			waitFor("ref_js_loop") // the first case is measured; the second runs on the device
			dev.Freeze()
			cmd.Process.Signal(c.sig)
			waitFor("press Ctrl-C again")
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Cleanup over a frozen connection waits for bounds of many seconds; it must still be waiting.
			select {
			case err := <-done:
				t.Fatalf("bench-bridge ended after one signal while its device was frozen (%v): the test proves nothing", err)
			case <-time.After(time.Second):
			}
			cmd.Process.Signal(c.sig)
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("bench-bridge still runs 15 s after the second %s:\n%s", c.name, strings.Join(log, "\n"))
			}
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Errorf("exit status %d after two %ss, want %d", code, c.name, c.code)
			}

			left, _ := filepath.Glob(filepath.Join(workdir, "bench-bridge-*"))
			if len(left) != 1 {
				t.Fatalf("run directories on the device after quitting: %v, want the one it could not remove", left)
			}
			// The next connection to the device removes it.
			out, err := exec.Command(bin, append([]string{"doctor", "board"}, flags...)...).CombinedOutput()
			if !strings.Contains(string(out), "removed "+left[0]) {
				t.Errorf("the next connection did not say it removed %s (%v):\n%s", left[0], err, out)
			}
			if _, err := os.Stat(left[0]); !os.IsNotExist(err) {
				t.Errorf("%s is still on the device after the next connection (%v)", left[0], err)
			}
		})
	}
}

// TestTargetsOnAStalledADBServer: an adb server that answers OKAY to host:transport and then never answers the
// service request. `bench-bridge targets` allows each target a few seconds (here two: what is proven is that the
// bound ends the wait, not its length) and must say which step did not answer, instead of hanging.
func TestTargetsOnAStalledADBServer(t *testing.T) {
	testenv.SkipInShort(t, "waits out the bound of a stalled adb server")
	old := reachBound
	reachBound = 2 * time.Second
	t.Cleanup(func() { reachBound = old })
	adbsim.StallingServer(t, "stall-cli")
	t.Setenv("ANDROID_SERIAL", "")
	stdout, stderr, code := run(t, "targets")
	var line string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "android ") {
			line = l
		}
	}
	if code != 0 || !strings.Contains(line, "no: target android: device stall-cli: getprop: opening adb service shell,v2,raw on stall-cli") {
		t.Fatalf("exit %d, android's line %q\n%s%s", code, line, stdout, stderr)
	}
}
