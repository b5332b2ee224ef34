package main

// Tests of a lab's command line on fake targets: many devices in one command, each a target of its own, at once.
// The real devices (adbd behind a lab host's adb server, a dropbear board) are lab_e2e_test.go's.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/targets"
)

// labConfig writes a config declaring bridge "fake" (fakeBridge), an adb target phones and an ssh target boards, and
// returns its path.
func labConfig(t *testing.T) string {
	t.Helper()
	cfg := fakeBridge(t)
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n[targets.phones]\nkind = \"adb\"\n\n[targets.boards]\nkind = \"ssh\"\n"); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// labFakes are fake targets named as session.Devices names the devices, and an adb server listing devices; the
// overrides it was asked with are kept.
func labFakes(devices []targets.ADBDevice, ts ...*fakeTarget) (*fakes, *targets.Overrides) {
	fs := newFakes(false, false, ts...)
	asked := &targets.Overrides{}
	fs.factory.ListADB = func(_ context.Context, o targets.Overrides) ([]targets.ADBDevice, error) {
		*asked = o
		return devices, nil
	}
	return fs, asked
}

// labArgs are a short run of the fake bridge under cfg.
func labArgs(cfg string, more ...string) []string {
	return append([]string{"--config", cfg, "--bridge", "fake", "--cases", "script_to_host_scalar", "--runs", "1",
		"--samples", "1", "--min-time", "1ms"}, more...)
}

// TestAllDevicesAtOnce: --all measures every device the adb server lists (the one -H and -P name), each a target
// named by its serial, all at once (each run waits until the others have started), one artifact each and one table.
func TestAllDevicesAtOnce(t *testing.T) {
	cfg := labConfig(t)
	meet := newRendezvous(3)
	names := []string{"phones-R58M1", "phones-10.0.0.2-5555", "phones-emulator-5554"}
	var ts []*fakeTarget
	for _, n := range names {
		ts = append(ts, &fakeTarget{name: n, meet: meet})
	}
	fs, asked := labFakes([]targets.ADBDevice{{Serial: "R58M1", State: "device", Model: "SM_G973F"},
		{Serial: "10.0.0.2:5555", State: "device"}, {Serial: "emulator-5554", State: "device"}}, ts...)
	out := filepath.Join(t.TempDir(), "{target}.json")
	if code := fs.run(append([]string{"phones", "--all", "-H", "lab1", "-P", "5038"}, labArgs(cfg, "--out", out)...)...); code != 0 {
		t.Fatalf("exit %d\n%s", code, fs.stderr.String())
	}
	if asked.ADBHost != "lab1" || asked.ADBPort != 5038 {
		t.Errorf("the adb server asked: %s:%d, want lab1:5038 (-H, -P)", asked.ADBHost, asked.ADBPort)
	}
	for _, n := range names {
		a, err := artifact.Read(strings.ReplaceAll(out, "{target}", n))
		if err != nil || a.Target != n || !a.Complete {
			t.Errorf("%s: %v", n, err)
		}
		if !strings.Contains(fs.stdout.String(), "fake "+n) {
			t.Errorf("the table lacks %s:\n%s", n, fs.stdout.String())
		}
	}
}

// TestSerialsAndModels: --serial takes serials and models the adb server reports, a target each named as written;
// --host A,B makes a target per host of an ssh target, and ssh A,B a board per host.
func TestSerialsAndModels(t *testing.T) {
	cfg := labConfig(t)
	devices := []targets.ADBDevice{{Serial: "R58M1", State: "device", Model: "SM_G973F"}, {Serial: "0123", State: "device"}}
	for _, tc := range []struct {
		args  []string
		names []string
	}{
		{[]string{"phones", "--serial", "0123,SM_G973F"}, []string{"phones-0123", "phones-SM_G973F"}},
		{[]string{"boards", "--host", "root@a,b:2222"}, []string{"boards-a", "boards-b-2222"}},
		{[]string{"ssh", "root@a,root@b"}, []string{"a", "b"}},
	} {
		var ts []*fakeTarget
		for _, n := range tc.names {
			ts = append(ts, &fakeTarget{name: n})
		}
		fs, _ := labFakes(devices, ts...)
		out := filepath.Join(t.TempDir(), "{target}.json")
		if code := fs.run(append(tc.args, labArgs(cfg, "--out", out)...)...); code != 0 {
			t.Errorf("%q: exit %d\n%s", tc.args, code, fs.stderr.String())
			continue
		}
		for _, ft := range ts {
			if a, err := artifact.Read(strings.ReplaceAll(out, "{target}", ft.name)); err != nil || a.Target != ft.name {
				t.Errorf("%q: %s: %v", tc.args, ft.name, err)
			}
		}
	}
}

// TestOneDeviceFailsTheOthersFinish: of three devices, one is lost in its run and one cannot be opened; the third
// finishes, the lost one's artifact is written and marked incomplete, and the error counts and names both.
func TestOneDeviceFailsTheOthersFinish(t *testing.T) {
	cfg := labConfig(t)
	out := filepath.Join(t.TempDir(), "{target}.json")
	ok, lost := &fakeTarget{name: "phones-a"}, &fakeTarget{name: "phones-b", lost: true}
	devices := []targets.ADBDevice{{Serial: "a", State: "device"}, {Serial: "b", State: "device"}, {Serial: "c", State: "offline"}}
	fs, _ := labFakes(devices, ok, lost) // phones-c cannot be opened: the fakes know no such target
	code := fs.run(append([]string{"phones", "--all"}, labArgs(cfg, "--out", out)...)...)
	stderr := fs.stderr.String()
	if code != 1 || !strings.Contains(stderr, "error: 2 of 3 targets failed: phones-b, phones-c\n") ||
		!strings.Contains(stderr, "phones-b: fake: connection lost (partial artifact") || !strings.Contains(stderr, `unknown target "phones-c"`) {
		t.Errorf("exit %d, want 1 naming phones-b and phones-c:\n%s", code, stderr)
	}
	if a, err := artifact.Read(strings.ReplaceAll(out, "{target}", "phones-a")); err != nil || !a.Complete {
		t.Errorf("phones-a: %v", err)
	}
	if a, err := artifact.Read(strings.ReplaceAll(out, "{target}", "phones-b")); err != nil || a.Complete {
		t.Errorf("phones-b's partial artifact: %v, complete %v", err, a != nil && a.Complete)
	}
	if !strings.Contains(fs.stdout.String(), "fake phones-a") || ok.closed.Load() != 1 || lost.closed.Load() != 1 {
		t.Errorf("want phones-a in the table and each opened target closed once:\n%s", fs.stdout.String())
	}
}

// TestDeviceFlagsRefused: what cannot name devices exits 1 with the fix, before any target opens.
func TestDeviceFlagsRefused(t *testing.T) {
	cfg := labConfig(t)
	devices := []targets.ADBDevice{{Serial: "a", State: "device", Model: "Pixel_7"}, {Serial: "b", State: "device", Model: "Pixel_7"}}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"phones", "--all", "--serial", "a"}, "--all and --serial a"},
		{[]string{"boards", "--all"}, "--all measures the devices of the adb server: name an adb target"},
		{[]string{"phones", "--serial", "a,Pixel_7"}, "--serial Pixel_7: 2 devices are of model Pixel_7 (a, b): name them by serial"},
		{[]string{"phones", "--host", "x,y"}, "--host x,y names several hosts: name an ssh target"},
		{[]string{"phones", "--all", "--out", "one.json"}, "put {target} in it"},
	} {
		fs, _ := labFakes(devices)
		if code := fs.run(append(tc.args, labArgs(cfg)...)...); code != 1 || !strings.Contains(fs.stderr.String(), tc.want) || fs.opened.Load() != 0 {
			t.Errorf("%q: exit %d, opened %d, want 1 and %q:\n%s", tc.args, code, fs.opened.Load(), tc.want, fs.stderr.String())
		}
	}
}
