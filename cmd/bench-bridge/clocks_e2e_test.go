package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/fakesys"
)

// lockedPhone is a real adbd device whose sysfs, as the target sees it, is a phone's tree of plain files laid into
// the device's root (this machine has no cpufreq, and its own /sys is never bound in): what --lock-clocks writes and
// gives back is read there from this machine, before, during and after a run.
type lockedPhone struct {
	tree   string // the tree, as this machine sees it
	saved  string // where the target keeps the settings it changed
	config string // a config whose target phone is the device, with its sysfs at the tree
	bin    string // bench-bridge, built for runs that are interrupted or killed
}

func newLockedPhone(t *testing.T) *lockedPhone {
	t.Helper()
	dev := android(t)
	root := dev.Root()
	p := &lockedPhone{tree: filepath.Join(root, "fakesys"), saved: filepath.Join(root, "data/local/tmp/.bench-bridge-clocks"),
		config: filepath.Join(t.TempDir(), "bench-bridge.toml"), bin: filepath.Join(t.TempDir(), "bench-bridge")}
	if err := fakesys.Phone(p.tree); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.config, []byte("[targets.phone]\nkind = \"adb\"\nsysfs = \"/fakesys\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "build", "-o", p.bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return p
}

// args are a run of the phone's little cluster with --lock-clocks, pinned to core 1 (this machine has two cores), of
// samples long enough for the run to be caught in the middle.
func (p *lockedPhone) args(out string, samples int) []string {
	return []string{"phone", "--config", p.config, "--cases", "script_to_host_scalar", "--cpu", "1", "--lock-clocks",
		"--runs", "2", "--samples", fmt.Sprint(samples), "--min-time", "20ms", "--warmup", "1ms", "--out", out}
}

// assertRestored checks that every file a lock changes holds what the phone started with, and that no saved
// settings are left on the device.
func (p *lockedPhone) assertRestored(t *testing.T, when string) {
	t.Helper()
	if changed := fakesys.Changed(p.tree); len(changed) > 0 {
		t.Errorf("%s: the clock settings are not the phone's: %v", when, changed)
	}
	if _, err := os.Stat(p.saved); !os.IsNotExist(err) {
		t.Errorf("%s: saved settings left on the device (%v)", when, err)
	}
}

// assertLocked checks that the little cluster is held at its lock frequency by the userspace governor, that the big
// cluster is as it was, and that the settings are saved on the device for bench-bridge pid.
func (p *lockedPhone) assertLocked(t *testing.T, when string, pid int) {
	t.Helper()
	lock := fmt.Sprint(fakesys.LittleLockKHz)
	want := []string{"policy0/scaling_governor: userspace", "policy0/scaling_min_freq: " + lock,
		"policy0/scaling_max_freq: " + lock, "policy0/scaling_setspeed: " + lock}
	changed := fakesys.Changed(p.tree)
	if !slices.Equal(changed, want) {
		t.Errorf("%s: changed %v, want %v", when, changed, want)
	}
	t.Logf("%s: %v", when, changed)
	saved, err := os.ReadFile(p.saved)
	if f := strings.Fields(string(saved)); err != nil || len(f) < 4 || f[0] != "owner" || f[2] != fmt.Sprint(pid) {
		t.Errorf("%s: saved settings %q (%v), want them owned by pid %d", when, saved, err, pid)
	}
}

// start runs bench-bridge with args and returns once it has measured its first case, with the rest of its stderr
// collected in the background.
func (p *lockedPhone) start(t *testing.T, args []string) (*exec.Cmd, func() string) {
	t.Helper()
	cmd := exec.Command(p.bin, args...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "phone: ref_js_loop") {
			break
		}
	}
	done := make(chan struct{})
	go func() { io.Copy(&seen, stderr); close(done) }()
	return cmd, func() string { <-done; return seen.String() }
}

// wait waits for cmd within a bound and returns its exit status.
func wait(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("bench-bridge did not end within 2 minutes")
	}
	return cmd.ProcessState.ExitCode()
}

// TestLockClocksOnARealDevice locks the clocks of a real adbd device (a phone's sysfs tree in its root) three ways:
// a run that ends normally, one interrupted by SIGINT and one killed by SIGKILL, after which the next run restores
// them. Each time the files are the phone's before, locked during, and the phone's again after; the artifact records
// the lock, the core each process ran on and the device's state. Without root the run is refused with what to do
// instead, and nothing is changed.
func TestLockClocksOnARealDevice(t *testing.T) {
	p := newLockedPhone(t)
	dir := t.TempDir()
	p.assertRestored(t, "before")

	t.Run("normal end", func(t *testing.T) {
		out := filepath.Join(dir, "normal.json")
		cmd, stderr := p.start(t, p.args(out, 3))
		p.assertLocked(t, "during", cmd.Process.Pid)
		if code := wait(t, cmd); code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr())
		}
		p.assertRestored(t, "after")
		a := readArtifact(t, out)
		c := a.Settings.Clocks
		if c == nil || c.CPU != "1" || !slices.Equal(c.Cores, []int{1}) || len(c.Locked) != 1 ||
			c.Locked[0].KHz != fakesys.LittleLockKHz || c.Locked[0].Governor != "userspace" || !slices.Equal(c.Locked[0].Cores, []int{0, 1, 2, 3}) {
			t.Errorf("clocks %+v", c)
		}
		for i, proc := range a.Processes {
			s := proc.Start
			if proc.CPU == nil || *proc.CPU != 1 || s == nil || s.FreqKHz != fakesys.LittleCurKHz || len(s.Thermal) != 3 ||
				s.Battery == nil || s.Battery.LevelPercent != 87 || proc.End == nil {
				t.Errorf("process %d: cpu %v, start %+v, end %+v", i, proc.CPU, s, proc.End)
			}
		}
		t.Logf("artifact: clocks %+v; process 0: cpu %d, start %+v", *c, *a.Processes[0].CPU, *a.Processes[0].Start)
		if !strings.Contains(a.Device.RunPrefix, "taskset 2") {
			t.Errorf("run prefix %q, want the pin to core 1", a.Device.RunPrefix)
		}
	})

	t.Run("SIGINT", func(t *testing.T) {
		cmd, stderr := p.start(t, p.args(filepath.Join(dir, "interrupted.json"), 20))
		p.assertLocked(t, "during", cmd.Process.Pid)
		cmd.Process.Signal(os.Interrupt)
		if code := wait(t, cmd); code != 130 {
			t.Errorf("exit %d, want 130\n%s", code, stderr())
		}
		p.assertRestored(t, "after SIGINT")
	})

	t.Run("SIGKILL then the next run", func(t *testing.T) {
		cmd, _ := p.start(t, p.args(filepath.Join(dir, "killed.json"), 20))
		p.assertLocked(t, "during", cmd.Process.Pid)
		cmd.Process.Signal(syscall.SIGKILL)
		wait(t, cmd)
		p.assertLocked(t, "after SIGKILL", cmd.Process.Pid)
		next := []string{"phone", "--config", p.config, "--cases", "script_to_host_scalar", "--runs", "1", "--samples", "3",
			"--min-time", "2ms", "--warmup", "1ms", "--out", filepath.Join(dir, "next.json")}
		_, stderr, code := run(t, next...)
		if code != 0 {
			t.Fatalf("the next run: exit %d\n%s", code, stderr)
		}
		if !strings.Contains(stderr, "restored the clock settings an earlier run left locked on the device") {
			t.Errorf("the next run does not say it restored the clocks:\n%s", stderr)
		}
		p.assertRestored(t, "after the next run")
	})

	t.Run("unrooted", func(t *testing.T) {
		// The device's shell and its su now answer as the shell user of a phone that is not rooted: every id on its
		// PATH says uid 2000.
		for _, bin := range []string{"system/bin", "usr/bin", "bin"} {
			id := filepath.Join(filepath.Dir(p.tree), bin, "id")
			if _, err := os.Lstat(id); err != nil {
				continue
			}
			os.Remove(id)
			if err := os.WriteFile(id, []byte("#!/system/bin/sh\necho 2000\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		_, stderr, code := run(t, p.args(filepath.Join(dir, "unrooted.json"), 3)...)
		if code == 0 || !strings.Contains(stderr, "--lock-clocks needs root, and the device's shell runs as uid 2000") ||
			!strings.Contains(stderr, "adb shell cmd power set-fixed-performance-mode-enabled true") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
		p.assertRestored(t, "after a lock refused")
	})
}
