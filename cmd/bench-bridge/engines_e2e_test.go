package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
)

// engineCases are what the other engines' floors measure on a device: the least that proves that a floor built for
// it runs there (a crossing each way, besides the reference loop).
var engineCases = []string{"script_to_host_scalar", "callback"}

// engineFloorsOn runs `bench-bridge floor TARGET --engine NAME` for Duktape and MuJS, built from their pinned
// sources for the target's toolchain, with flags (the device's; its budget is the least): each artifact names the engine and the release
// built, and holds the reference loop and engineCases, measured, by a program of compiler run under an emulator.
func engineFloorsOn(t *testing.T, target, compiler string, flags []string, log func() string) {
	t.Helper()
	dir := t.TempDir()
	for _, e := range []struct{ name, version string }{{"duktape", build.DuktapeVersion}, {"mujs", build.MuJSVersion}} {
		out := filepath.Join(dir, "floor-"+e.name+".json")
		args := append(append([]string{"floor", target, "--engine", e.name, "--out", out, "--cases", strings.Join(engineCases, ",")}, flags...),
			"--runs", "1", "--samples", "1", "--min-time", "1ms", "--warmup", "1ms") // after flags: the last of a flag counts
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("bench-bridge %s: exit %d\nstdout:\n%s\nstderr:\n%s\ndevice:\n%s", strings.Join(args, " "), code, stdout, stderr, log())
		}
		a := readArtifact(t, out)
		if a.Engine.Name != e.name || a.Engine.Version != e.version || !a.Complete || len(a.Failures) > 0 ||
			len(a.Cases) != 1+len(engineCases) || a.Cases[0].Name != cases.RefCase {
			t.Fatalf("%s: engine %+v, complete=%v, failures %+v, cases %d: want %s %s, the reference loop and %v",
				out, a.Engine, a.Complete, a.Failures, len(a.Cases), e.name, e.version, engineCases)
		}
		for _, name := range engineCases {
			if c := a.Case(name); c == nil || c.MedianNs <= 0 || len(c.SamplesNs) != 1 {
				t.Errorf("%s: %s not measured: %+v", a.Label(), name, c)
			}
		}
		if !strings.Contains(a.Device.Compiler, compiler) || !a.Device.Emulated {
			t.Errorf("%s: compiler %q, emulated %v: want %s, emulated", a.Label(), a.Device.Compiler, a.Device.Emulated, compiler)
		}
		t.Logf("%s on %s (emulated, beside other tests): script_to_host_scalar %.0f ns, callback %.0f ns, ref_js_loop %.0f ns",
			e.name, target, a.Case("script_to_host_scalar").MedianNs, a.Case("callback").MedianNs, a.Case(cases.RefCase).MedianNs)
	}
}

// TestAndroidEngineFloors runs the Duktape and MuJS floors on Android (real adbd, arm64 through binfmt), as
// TestAndroidEndToEnd runs QuickJS's.
func TestAndroidEngineFloors(t *testing.T) {
	dev := android(t)
	engineFloorsOn(t, "android", "aarch64-linux-gnu-gcc", nil, dev.Log)
	assertCleanedUp(t, dev.Root())
}

// TestWebOSEngineFloors runs the Duktape and MuJS floors on the dropbear board (webos: ARMv7 softfp, armel, through
// binfmt), as TestWebOSOnBoard runs QuickJS's.
func TestWebOSEngineFloors(t *testing.T) {
	b, flags := webosBoard(t)
	engineFloorsOn(t, "webos", "arm-linux-gnueabi", flags, b.Log)
}
