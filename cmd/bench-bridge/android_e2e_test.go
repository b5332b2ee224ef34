package main

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/adbsim"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// tinyBudget keeps runs under qemu short: each case costs about ten times what it does natively.
var tinyBudget = []string{"--runs", "1", "--samples", "3", "--min-time", "2ms", "--warmup", "1ms"}

// qemuCases are what runs under qemu: one crossing case besides the reference loop. Every case runs natively
// (TestEndToEnd); under qemu each costs about ten times as much and proves no more about the transport.
var qemuCases = []string{"--cases", "script_to_host_scalar"}

// TestAndroidEndToEnd runs `bench-bridge floor android` and `bench-bridge android` through the real adb server on
// real adbd: the cases asked for, an artifact each, marked as emulated with the reason, with the device's facts.
func TestAndroidEndToEnd(t *testing.T) {
	dev := android(t)
	dir := t.TempDir()
	floorOut, bridgeOut := filepath.Join(dir, "floor-android.json"), filepath.Join(dir, "android.json")
	for _, args := range [][]string{
		append(append([]string{"floor", "android", "--out", floorOut}, qemuCases...), tinyBudget...),
		append(append([]string{"android", "--out", bridgeOut}, qemuCases...), tinyBudget...),
	} {
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("bench-bridge %s: exit %d\nstdout:\n%s\nstderr:\n%s\nadbd:\n%s", strings.Join(args, " "), code, stdout, stderr, dev.Log())
		}
		if !strings.Contains(stdout, "measured under an emulator (the device's kernel is ") ||
			!strings.Contains(stdout, "these are not the device's numbers") {
			t.Errorf("bench-bridge %s does not say the numbers are an emulator's:\n%s", args[0], stdout)
		}
	}
	floor, bridge := readArtifact(t, floorOut), readArtifact(t, bridgeOut)
	for _, a := range []*artifact.Artifact{floor, bridge} {
		if !a.Complete || len(a.Failures) > 0 || len(a.Cases) != 2 { // the case and the reference loop
			t.Errorf("%s: complete=%v, %d cases, failures %+v", a.Label(), a.Complete, len(a.Cases), a.Failures)
		}
		for _, c := range a.Cases {
			if len(c.SamplesNs) != 3 || c.MedianNs <= 0 {
				t.Errorf("%s %s: samples %v", a.Label(), c.Name, c.SamplesNs)
			}
		}
		d := a.Device
		if d.Android == nil || d.Android.ABI != "arm64-v8a" || d.Android.SDK != "34" || d.Android.Model != "Devroot 1" ||
			d.OS != "Android 14 (SDK 34)" || !strings.Contains(d.Compiler, "aarch64-linux-gnu-gcc") {
			t.Errorf("%s: device %+v, android %+v", a.Label(), d, d.Android)
		}
		assertEmulatedByKernel(t, a, "aarch64")
	}
	f, b := floor.Case("script_to_host_scalar").MedianNs, bridge.Case("script_to_host_scalar").MedianNs
	t.Logf("arm64 through binfmt (emulated): script_to_host_scalar floor %.0f ns, json %.0f ns: %.1fx; ref_js_loop %.0f ns",
		f, b, b/f, floor.Case(cases.RefCase).MedianNs)
	assertCleanedUp(t, dev.Root())
}

// assertEmulatedByKernel checks that an artifact of a program run through binfmt says so: emulated, and why.
func assertEmulatedByKernel(t *testing.T, a *artifact.Artifact, program string) {
	t.Helper()
	d := a.Device
	if !d.Emulated || !strings.Contains(d.EmulatedReason, "kernel is "+d.Arch+" (uname -m)") ||
		!strings.Contains(d.EmulatedReason, "the program is "+program) || d.Arch == "" {
		t.Errorf("%s: emulated %v, reason %q, arch %q: want emulated, the %s program on the kernel's arch", a.Label(),
			d.Emulated, d.EmulatedReason, d.Arch, program)
	}
}

// assertCleanedUp checks that no per-build directory is left on the device whose file system is at root.
func assertCleanedUp(t *testing.T, root string) {
	t.Helper()
	if root == "" {
		t.Fatal("the device is gone")
	}
	left, _ := filepath.Glob(filepath.Join(root, "data", "local", "tmp", "bench-bridge-*"))
	if len(left) > 0 {
		t.Errorf("left on the device: %v", left)
	}
}

// TestAndroidDeviceLost takes the device away (adbd and all it runs killed, as a cable pulled out) in the middle of
// the second case: the error names the device and the case, and the artifact keeps the first case, marked incomplete.
func TestAndroidDeviceLost(t *testing.T) {
	dev := ownAndroid(t)
	out := filepath.Join(t.TempDir(), "lost.json")
	// Long samples, so that the cut lands inside the second case, not between two.
	args := append([]string{"floor", "android", "--out", out, "--cases", "script_to_host_scalar"}, tinyBudget...)
	args = append(args, "--min-time", "300ms")
	var stdout bytes.Buffer
	stderr := &cutter{when: "android: " + cases.RefCase, cut: func() { time.AfterFunc(300*time.Millisecond, dev.Vanish) }}
	code := execute(args, &stdout, stderr)
	msg := stderr.String()
	if code == 0 {
		t.Fatalf("bench-bridge succeeded on a lost device:\n%s\n%s", stdout.String(), msg)
	}
	for _, want := range []string{"android: case script_to_host_scalar: device " + dev.Serial + ": ", "the device went away",
		"partial artifact with 1 cases written to " + out} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	a := readArtifact(t, out)
	if a.Complete || a.Case(cases.RefCase) == nil || len(a.Cases) != 1 {
		t.Errorf("artifact: complete=%v, cases %d, failures %+v", a.Complete, len(a.Cases), a.Failures)
	}
}

// TestAndroidHungProgram runs `floor android` over the reference loop and script_to_host_scalar and stops the
// program on the device (SIGSTOP, from this machine) once the first case is measured: the stall timeout kills it
// there, the case is a failure, the first case is kept, and nothing of the run is left running or lying on the
// device. The stall and the kill are the runner's and the transport's, alike on every target: the ssh targets'
// kill is proven against real sshd in package targets.
func TestAndroidHungProgram(t *testing.T) {
	dev := android(t)
	out := filepath.Join(t.TempDir(), "hung.json")
	args := append([]string{"floor", "android", "--out", out, "--cases", "script_to_host_scalar", "--stall-timeout", "3s"}, tinyBudget...)
	args = append(args, "--min-time", "100ms") // long samples: the stop lands inside the case
	var stdout bytes.Buffer
	stopped := make(chan []int, 1)
	stderr := &cutter{when: "android: " + cases.RefCase, cut: func() { stopped <- stopPrograms(dev.Running()) }}
	code := execute(args, &stdout, stderr)
	if code == 0 {
		t.Fatalf("bench-bridge succeeded with a hung case:\n%s\n%s", stdout.String(), stderr)
	}
	if pids := <-stopped; len(pids) == 0 {
		t.Fatalf("no program found on the device to stop:\n%s", stderr)
	}
	a := readArtifact(t, out)
	if a.Complete || a.Case(cases.RefCase) == nil || len(a.Failures) != 1 || a.Failures[0].Name != "script_to_host_scalar" ||
		!strings.Contains(a.Failures[0].Reason, "printed nothing for 3s: killed") {
		t.Errorf("artifact: complete=%v, cases %d, failures %+v", a.Complete, len(a.Cases), a.Failures)
	}
	assertNothingRuns(t, dev.Running)
	assertCleanedUp(t, dev.Root())
}

// stopPrograms stops the bench programs among a device's processes ("pid command"), as a program that hangs.
func stopPrograms(running []string) []int {
	var pids []int
	for _, p := range running {
		pid, cmd, _ := strings.Cut(p, " ")
		if strings.Contains(cmd, " run ") && strings.Contains(cmd, "script_to_host_scalar") {
			n, _ := strconv.Atoi(pid)
			syscall.Kill(n, syscall.SIGSTOP)
			pids = append(pids, n)
		}
	}
	return pids
}

// assertNothingRuns waits a little for the device's processes (besides its daemon) to end.
func assertNothingRuns(t *testing.T, running func() []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(running()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := running(); len(left) > 0 {
		t.Errorf("still running on the device: %v", left)
	}
}

// The simulator (internal/adbsim) is for the faults real adbd cannot be made to produce: a device whose user has
// not allowed this computer (unauthorized), and a connection dropped at a chosen byte of the program's output.

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

// TestAndroidDroppedMidLine drops the connection right after the program's line that begins the second case, before
// any of its samples: the artifact keeps the first case, marked incomplete.
func TestAndroidDroppedMidLine(t *testing.T) {
	testenv.Require(t, "aarch64-linux-gnu-gcc", "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross (scripts/setup does it)")
	testenv.Require(t, "qemu-aarch64", "apt-get install qemu-user (scripts/setup does it)")
	srv := adbsim.StartServer(t)
	dev := adbsim.Start(t, adbsim.Emulator())
	srv.Connect(t, dev, "device")
	t.Setenv("ANDROID_SERIAL", "")
	out := filepath.Join(t.TempDir(), "lost.json")
	dev.DropWhen("begin script_to_host_scalar")
	args := append([]string{"floor", "android", "--out", out, "--cases", "script_to_host_scalar"}, tinyBudget...)
	_, stderr, code := run(t, args...)
	if code == 0 || !strings.Contains(stderr, "device "+dev.Addr()+": ") || !strings.Contains(stderr, "the device went away") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	a := readArtifact(t, out)
	if a.Complete || a.Case(cases.RefCase) == nil || len(a.Cases) != 1 {
		t.Errorf("artifact: complete=%v, cases %d, failures %+v", a.Complete, len(a.Cases), a.Failures)
	}
}
