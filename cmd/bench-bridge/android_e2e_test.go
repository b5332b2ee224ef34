package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/adbsim"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// android starts a real adb server and a simulated arm64 emulator whose programs run under qemu-aarch64, connected
// and ready; the bench programs are cross-built with Debian's aarch64 compiler.
func android(t *testing.T) *adbsim.Device {
	t.Helper()
	testenv.Require(t, "aarch64-linux-gnu-gcc", "apt-get install gcc-aarch64-linux-gnu (scripts/setup does it)")
	testenv.Require(t, "qemu-aarch64", "apt-get install qemu-user (scripts/setup does it)")
	srv := adbsim.StartServer(t)
	dev := adbsim.Start(t, adbsim.Emulator())
	srv.Connect(t, dev, "device")
	t.Setenv("ANDROID_SERIAL", "")
	return dev
}

// tinyBudget keeps runs under qemu short: each case costs about ten times what it does natively.
var tinyBudget = []string{"--samples", "3", "--min-time", "2ms", "--warmup", "1ms"}

// TestAndroidEndToEnd runs `bench-bridge floor android` and `bench-bridge android` through the real adb server on
// the simulated device: every case, an artifact each, marked as emulated, with the device's facts.
func TestAndroidEndToEnd(t *testing.T) {
	dev := android(t)
	dir := t.TempDir()
	floorOut, bridgeOut := filepath.Join(dir, "floor-android.json"), filepath.Join(dir, "android.json")
	for _, args := range [][]string{
		append([]string{"floor", "android", "--out", floorOut}, tinyBudget...),
		append([]string{"android", "--out", bridgeOut}, tinyBudget...),
	} {
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("bench-bridge %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
		if !strings.Contains(stdout, "measured under an emulator: these are not the device's numbers") {
			t.Errorf("bench-bridge %s does not say the numbers are an emulator's:\n%s", args[0], stdout)
		}
		if !strings.Contains(stderr, "android: warning: clocks are not locked") {
			t.Errorf("bench-bridge %s does not warn about the clocks:\n%s", args[0], stderr)
		}
	}
	for _, path := range []string{floorOut, bridgeOut} {
		a := readArtifact(t, path)
		if !a.Complete || len(a.Failures) > 0 || len(a.Cases) != len(cases.Catalogue) {
			t.Errorf("%s: complete=%v, %d cases, failures %+v", path, a.Complete, len(a.Cases), a.Failures)
		}
		for _, c := range a.Cases {
			if len(c.SamplesNs) != 3 || c.MedianNs <= 0 {
				t.Errorf("%s %s: samples %v", path, c.Name, c.SamplesNs)
			}
		}
		d := a.Device
		if !d.Emulated || !strings.Contains(d.EmulatedReason, "ro.kernel.qemu=1") || d.Android == nil || d.Android.ABI != "arm64-v8a" || d.Android.SDK != "34" || d.Arch != "aarch64" ||
			!strings.Contains(d.Compiler, "aarch64-linux-gnu-gcc") || len(d.CPUFreqs) != 4 {
			t.Errorf("%s: device %+v, android %+v", path, d, d.Android)
		}
		if !strings.Contains(strings.Join(a.Warnings, "\n"), "clocks are not locked") {
			t.Errorf("%s: warnings %q", path, a.Warnings)
		}
	}
	assertCleanedUp(t, dev)
}

// assertCleanedUp checks that no per-build directory is left on the device.
func assertCleanedUp(t *testing.T, dev *adbsim.Device) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dev.Root(), "data", "local", "tmp", "bench-bridge-*"))
	if len(left) > 0 {
		t.Errorf("left on the device: %v", left)
	}
}

// TestAndroidDeviceLost drops the device in the middle of the second case: the error names the device and the case,
// and the artifact keeps the first case, marked incomplete.
func TestAndroidDeviceLost(t *testing.T) {
	dev := android(t)
	out := filepath.Join(t.TempDir(), "lost.json")
	dev.DropWhen("begin script_to_host_scalar")
	args := append([]string{"floor", "android", "--out", out, "--cases", "script_to_host_scalar,callback"}, tinyBudget...)
	stdout, stderr, code := run(t, args...)
	if code == 0 {
		t.Fatalf("bench-bridge succeeded on a lost device:\n%s\n%s", stdout, stderr)
	}
	for _, want := range []string{"android: case script_to_host_scalar: device " + dev.Addr() + ": ", "case script_to_host_scalar", "the device went away", "partial artifact with 1 cases written to " + out} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	a := readArtifact(t, out)
	if a.Complete || a.Case(cases.RefCase) == nil || len(a.Cases) != 1 {
		t.Errorf("artifact: complete=%v, cases %d, failures %+v", a.Complete, len(a.Cases), a.Failures)
	}
}

// TestAndroidHungProgram stops the program on the device after its first case: the stall timeout kills it there,
// the case is a failure, and the next case runs in a new process.
func TestAndroidHungProgram(t *testing.T) {
	dev := android(t)
	out := filepath.Join(t.TempDir(), "hung.json")
	dev.HangWhen("begin script_to_host_scalar")
	args := append([]string{"floor", "android", "--out", out, "--cases", "script_to_host_scalar", "--stall-timeout", "5s"}, tinyBudget...)
	stdout, stderr, code := run(t, args...)
	if code == 0 {
		t.Fatalf("bench-bridge succeeded with a hung case:\n%s\n%s", stdout, stderr)
	}
	a := readArtifact(t, out)
	if a.Complete || a.Case(cases.RefCase) == nil || len(a.Failures) != 1 || a.Failures[0].Name != "script_to_host_scalar" ||
		!strings.Contains(a.Failures[0].Reason, "printed nothing for 5s: killed") {
		t.Errorf("artifact: complete=%v, cases %d, failures %+v", a.Complete, len(a.Cases), a.Failures)
	}
	if running := dev.Running(); len(running) > 0 {
		t.Errorf("processes %v still run on the device", running)
	}
	assertCleanedUp(t, dev)
}

// TestAndroidUnauthorized is the first run on a phone whose user has not yet allowed this computer: a clear error
// with what to do, before anything is built.
func TestAndroidUnauthorized(t *testing.T) {
	srv := adbsim.StartServer(t)
	opts := adbsim.Emulator()
	opts.Unauthorized = true
	dev := adbsim.Start(t, opts)
	srv.Connect(t, dev, "unauthorized")
	t.Setenv("ANDROID_SERIAL", "")
	_, stderr, code := run(t, "android", "--out", filepath.Join(t.TempDir(), "a.json"))
	want := "bench-bridge: error: target android: device " + dev.Addr() + " is unauthorized: unlock the device and accept the \"Allow USB debugging?\" prompt"
	if code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant %q", code, stderr, want)
	}
}
