package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/internal/fakesys"
)

// phoneCPUs is a device's CPUs driven through shell (its words, as shells gives them) against a fresh phone's sysfs
// tree, with the saved settings in a file of the test's own.
func phoneCPUs(t *testing.T, shell ...string) (*cpuControl, string, *bytes.Buffer) {
	t.Helper()
	root := t.TempDir()
	if err := fakesys.Phone(root); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	c := &cpuControl{label: "phone", sysfs: root, saved: filepath.Join(t.TempDir(), "state", savedClocksName), log: &log,
		sh: shellScripts(shell...)}
	return c, root, &log
}

// TestCoresOfAPhone: the cores script lists the eight cores with their top frequency, capacity and cluster, and
// --cpu resolves against them: big and little by capacity, a number as itself, a core the phone lacks refused.
func TestCoresOfAPhone(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(shellName(sh), func(t *testing.T) {
			c, _, _ := phoneCPUs(t, sh...)
			cores, err := c.Cores(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(cores) != 8 {
				t.Fatalf("%d cores: %+v", len(cores), cores)
			}
			if c0, c5 := cores[0], cores[5]; c0.MaxKHz != fakesys.LittleMaxKHz || c0.Capacity != 430 ||
				!slices.Equal(c0.Related, []int{0, 1, 2, 3}) || c5.MaxKHz != fakesys.BigMaxKHz ||
				!slices.Equal(c5.Related, []int{4, 5, 6, 7}) || !slices.Contains(c5.Governors, "userspace") ||
				len(c5.Freqs) != 6 {
				t.Errorf("cpu0 %+v, cpu5 %+v", c0, c5)
			}
			for cpu, want := range map[string][]int{"big": {4, 5, 6, 7}, "little": {0, 1, 2, 3}, "6": {6}} {
				if got, err := ChooseCores(cores, cpu); err != nil || !slices.Equal(got, want) {
					t.Errorf("--cpu %s: %v, %v; want %v", cpu, got, err, want)
				}
			}
			if _, err := ChooseCores(cores, "9"); err == nil || !strings.Contains(err.Error(), "no core 9 (its cores: 0-7)") {
				t.Errorf("--cpu 9: %v", err)
			}
		})
	}
}

// TestChooseCoresByFrequency: without cpu_capacity on every core, big and little go by the top frequency; cores
// that are all alike are all big and all little.
func TestChooseCoresByFrequency(t *testing.T) {
	cores := []Core{{ID: 0, MaxKHz: 1800000}, {ID: 1, MaxKHz: 2800000, Capacity: 1024}, {ID: 2, MaxKHz: 2800000}}
	if got, _ := ChooseCores(cores, "big"); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("big: %v", got)
	}
	if got, _ := ChooseCores(cores, "little"); !slices.Equal(got, []int{0}) {
		t.Errorf("little: %v", got)
	}
	same := []Core{{ID: 0}, {ID: 1}}
	if got, _ := ChooseCores(same, "big"); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("big of alike cores: %v", got)
	}
	if _, err := ChooseCores(same, "-1"); err == nil {
		t.Error("--cpu -1 accepted")
	}
}

// TestPinWords: the mask taskset takes in every userland (toybox's has no -c).
func TestPinWords(t *testing.T) {
	for _, tt := range []struct {
		cores []int
		mask  string
	}{{[]int{0}, "1"}, {[]int{4, 5, 6, 7}, "f0"}, {[]int{1, 3}, "a"}, {[]int{64}, "10000000000000000"}} {
		if w, err := pinWords(tt.cores); err != nil || !slices.Equal(w, []string{"taskset", tt.mask}) {
			t.Errorf("%v: %v, %v; want taskset %s", tt.cores, w, err, tt.mask)
		}
	}
	if _, err := pinWords(nil); err == nil {
		t.Error("pinning to no core accepted")
	}
}

// TestStateOfAPhone: the state script reads every core's frequency, the thermal zones in degrees, the battery
// (level, temperature, status) and the load, in every shell.
func TestStateOfAPhone(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(shellName(sh), func(t *testing.T) {
			c, _, _ := phoneCPUs(t, sh...)
			s, err := c.State(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(s.FreqKHz) != 8 || s.FreqKHz[0] != fakesys.LittleCurKHz || s.FreqKHz[7] != fakesys.BigCurKHz {
				t.Errorf("frequencies %v", s.FreqKHz)
			}
			want := []artifact.Thermal{{Zone: "cpu-0-0", Celsius: 41}, {Zone: "cpu-1-0", Celsius: 43.5}, {Zone: "battery", Celsius: 30.1}}
			if !slices.Equal(s.Thermal, want) {
				t.Errorf("thermal %+v, want %+v", s.Thermal, want)
			}
			if b := s.Battery; b == nil || b.LevelPercent != 87 || b.Celsius == nil || *b.Celsius != 30.1 || b.Status != "Discharging" || b.Charging {
				t.Errorf("battery %+v", b)
			}
			if len(s.LoadAvg) != 3 {
				t.Errorf("load %v", s.LoadAvg)
			}
			core := 5
			if d := s.For(&core); d.FreqKHz != fakesys.BigCurKHz || len(d.Thermal) != 3 {
				t.Errorf("state of cpu 5: %+v", d)
			}
		})
	}
}

// TestParseState: what a device prints that is no reading is left out; a battery that is charging says so.
func TestParseState(t *testing.T) {
	s := parseState([]byte("freq 0 nan\nfreq x 100\nfreq 2 1500000\nthermal inf cpu\nthermal 45 old zone\n" +
		"battery 101 300 Full\nload 1.5 0.5\n"))
	if len(s.FreqKHz) != 1 || s.FreqKHz[2] != 1500000 {
		t.Errorf("frequencies %v", s.FreqKHz)
	}
	if len(s.Thermal) != 1 || s.Thermal[0] != (artifact.Thermal{Zone: "old zone", Celsius: 45}) {
		t.Errorf("thermal %+v", s.Thermal)
	}
	if s.Battery != nil || !slices.Equal(s.LoadAvg, []float64{1.5, 0.5}) {
		t.Errorf("battery %+v, load %v", s.Battery, s.LoadAvg)
	}
	if b := parseState([]byte("battery 40 - Charging\n")).Battery; b == nil || !b.Charging || b.Celsius != nil || b.Status != "Charging" {
		t.Errorf("charging battery %+v", b)
	}
}

// TestLockAndRestoreClocks: a lock of the big cores saves their settings on the device, holds every core of the
// cluster at the lowest listed frequency at least half the top one with the userspace governor, leaves the little
// cluster alone, refuses a second lock while it holds, and the restore gives every file back and removes the saved
// settings. In every shell.
func TestLockAndRestoreClocks(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(shellName(sh), func(t *testing.T) {
			c, root, _ := phoneCPUs(t, sh...)
			ctx := context.Background()
			plan, err := c.LockClocks(ctx, []int{5})
			if err != nil {
				t.Fatal(err)
			}
			want := []artifact.LockedCluster{{Cores: []int{4, 5, 6, 7}, KHz: fakesys.BigLockKHz, MaxKHz: fakesys.BigMaxKHz, Governor: "userspace"}}
			if fmt.Sprint(plan) != fmt.Sprint(want) {
				t.Errorf("plan %+v, want %+v", plan, want)
			}
			lock := fmt.Sprint(fakesys.BigLockKHz)
			for file, v := range map[string]string{"scaling_governor": "userspace", "scaling_min_freq": lock,
				"scaling_max_freq": lock, "scaling_setspeed": lock} {
				if got := fakesys.Read(root, "policy4", file); got != v {
					t.Errorf("locked: policy4/%s is %q, want %q", file, got, v)
				}
			}
			if changed := fakesys.Changed(root); len(changed) != 4 || !strings.HasPrefix(changed[0], "policy4/") {
				t.Errorf("locked: changed %v, want policy4's four files only", changed)
			}
			if saved, err := os.ReadFile(c.saved); err != nil || !strings.HasPrefix(string(saved), "owner "+hostName()+" ") {
				t.Errorf("saved settings %q, %v", saved, err)
			}
			if _, err := c.LockClocks(ctx, []int{0}); err == nil || !strings.Contains(err.Error(), "the clocks are held: owner ") {
				t.Errorf("a second lock: %v", err)
			}
			if err := c.RestoreClocks(ctx); err != nil {
				t.Fatal(err)
			}
			if changed := fakesys.Changed(root); len(changed) > 0 {
				t.Errorf("restored: still changed %v", changed)
			}
			if _, err := os.Stat(c.saved); !os.IsNotExist(err) {
				t.Errorf("the saved settings are left: %v", err)
			}
		})
	}
}

// TestLockWithPerformance: a cluster without the userspace governor is held by performance with min = max, and the
// restore gives back a min above the locked max (written min, max, min, max).
func TestLockWithPerformance(t *testing.T) {
	c, root, _ := phoneCPUs(t, shells(t)[0]...)
	p := filepath.Join(root, "devices/system/cpu/cpufreq/policy0")
	for file, v := range map[string]string{"scaling_available_governors": "performance schedutil", "scaling_min_freq": "1500000"} {
		if err := os.WriteFile(filepath.Join(p, file), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := c.LockClocks(context.Background(), []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 1 || plan[0].Governor != "performance" || plan[0].KHz != fakesys.LittleLockKHz {
		t.Errorf("plan %+v", plan)
	}
	if g, lo := fakesys.Read(root, "policy0", "scaling_governor"), fakesys.Read(root, "policy0", "scaling_min_freq"); g != "performance" || lo != "900000" {
		t.Errorf("locked: governor %s, min %s", g, lo)
	}
	if err := c.RestoreClocks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if lo := fakesys.Read(root, "policy0", "scaling_min_freq"); lo != "1500000" {
		t.Errorf("restored min %s, want 1500000", lo)
	}
}

// TestClocksLeftByADeadRun: settings a killed run left saved are given back at the next connection (the first
// thing the next target does on the device), once; settings another machine's run holds are left, with a warning.
func TestClocksLeftByADeadRun(t *testing.T) {
	c, root, _ := phoneCPUs(t, shells(t)[3]...)
	ctx := context.Background()
	if _, err := c.LockClocks(ctx, []int{0, 4}); err != nil {
		t.Fatal(err)
	}
	saved, _ := os.ReadFile(c.saved)
	first, rest, _ := strings.Cut(string(saved), "\n")
	owner := strings.Fields(first)
	dead := fmt.Sprintf("owner %s %d %s\n", owner[1], deadPid(t), owner[3])
	foreign := "owner other-lab-host 1 " + owner[3] + "\n"
	next := &cpuControl{label: "phone", sysfs: root, saved: c.saved, sh: c.sh}

	os.WriteFile(c.saved, []byte(foreign+rest), 0o644)
	var log bytes.Buffer
	next.log = &log
	if _, err := next.State(ctx); err != nil {
		t.Fatal(err)
	}
	if len(fakesys.Changed(root)) != 8 || !strings.Contains(log.String(), "bench-bridge on other-lab-host (pid 1) has held the device's clocks since ") {
		t.Errorf("another machine's lock: changed %v, log %q", fakesys.Changed(root), log.String())
	}

	os.WriteFile(c.saved, []byte(dead+rest), 0o644)
	log.Reset()
	next.recovered = false
	if _, err := next.Cores(ctx); err != nil {
		t.Fatal(err)
	}
	if changed := fakesys.Changed(root); len(changed) > 0 || !strings.Contains(log.String(), "restored the clock settings an earlier run left locked on the device") {
		t.Errorf("a dead run's lock: changed %v, log %q", changed, log.String())
	}
	if _, err := os.Stat(c.saved); !os.IsNotExist(err) {
		t.Errorf("the saved settings are left: %v", err)
	}
}

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	return p.Pid
}

// TestUnrooted: without root --lock-clocks says what to do instead: fixed performance mode on Android 11 and later.
func TestUnrooted(t *testing.T) {
	for sdk, want := range map[string]string{"34": "cmd power set-fixed-performance-mode-enabled true", "29": "lock them as root", "": "lock them as root"} {
		err := unrooted("device X", "2000", sdk)
		if !strings.Contains(err.Error(), "device X: --lock-clocks needs root, and the device's shell runs as uid 2000") || !strings.Contains(err.Error(), want) {
			t.Errorf("sdk %q: %v", sdk, err)
		}
	}
}

// TestWithSysfs: a probe script's /sys paths point at another root, quoted; /proc/sys stays.
func TestWithSysfs(t *testing.T) {
	got := withSysfs("cat /proc/sys/kernel/arch\nfor c in /sys/devices/system/cpu/cpu*; do\ng=/sys/class\n", "/fake$sys/")
	want := "cat /proc/sys/kernel/arch\nfor c in '/fake$sys'/devices/system/cpu/cpu*; do\ng='/fake$sys'/class\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestLockTheKernelRefuses: a setting the kernel does not keep (here a min that reads back empty) fails the lock
// with what the kernel kept, and what the lock had changed is given back at once.
func TestLockTheKernelRefuses(t *testing.T) {
	c, root, _ := phoneCPUs(t, shells(t)[0]...)
	min := filepath.Join(root, "devices/system/cpu/cpufreq/policy4/scaling_min_freq")
	os.Remove(min)
	if err := os.Symlink(os.DevNull, min); err != nil {
		t.Fatal(err)
	}
	_, err := c.LockClocks(context.Background(), []int{4})
	if err == nil || !strings.Contains(err.Error(), "cpu4/cpufreq: the kernel kept userspace at -1400000 kHz") {
		t.Fatalf("lock: %v", err)
	}
	if g := fakesys.Read(root, "policy4", "scaling_governor"); g != "schedutil" {
		t.Errorf("governor %s after a failed lock, want schedutil back", g)
	}
	if _, err := os.Stat(c.saved); !os.IsNotExist(err) {
		t.Errorf("the saved settings are left after a failed lock: %v", err)
	}
}

// TestClocksLeftByALostConnection: a restore over a connection that is gone fails, saying the settings stay saved on
// the device; the next connection gives them back.
func TestClocksLeftByALostConnection(t *testing.T) {
	c, root, _ := phoneCPUs(t, shells(t)[0]...)
	ctx := context.Background()
	if _, err := c.LockClocks(ctx, []int{4}); err != nil {
		t.Fatal(err)
	}
	working := c.sh
	c.sh = func(context.Context, string) ([]byte, error) { return nil, errors.New("the device went away") }
	err := c.RestoreClocks(ctx)
	if err == nil || !strings.Contains(err.Error(), "the device went away; they stay saved in "+c.saved+" on the device, and bench-bridge restores them at its next connection") {
		t.Fatalf("restore over a lost connection: %v", err)
	}
	var log bytes.Buffer
	next := &cpuControl{label: "phone", sysfs: root, saved: c.saved, sh: working, log: &log}
	if _, err := next.State(ctx); err != nil {
		t.Fatal(err)
	}
	if changed := fakesys.Changed(root); len(changed) > 0 || !strings.Contains(log.String(), "restored the clock settings") {
		t.Errorf("the next connection: changed %v, log %q", changed, log.String())
	}
}
