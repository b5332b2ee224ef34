package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/internal/devroot"
)

// engineCases are what the other engines' floors measure on a device: the least that proves that a floor built for
// it runs there (a crossing each way, besides the reference loop).
var engineCases = []string{"script_to_host_scalar", "callback"}

// engineRelease is an engine's floor as an artifact names it: the engine and the release built.
type engineRelease struct{ name, version string }

// cFloors are the other engines' floors built from their pinned sources for a device's toolchain.
var cFloors = []engineRelease{{"duktape", engines.DuktapeVersion}, {"mujs", engines.MuJSVersion}}

// engineFloorsOn runs `bench-bridge floor TARGET --engine NAME` for each of floors, with flags (the device's; its
// budget is the least) over measured: each artifact names the engine and the release built, and holds the reference
// loop and measured, measured by a program run under an emulator whose compiler or flags say built (the C compiler,
// or the Go target).
func engineFloorsOn(t *testing.T, target string, floors []engineRelease, built string, measured, flags []string, log func() string) {
	t.Helper()
	dir := t.TempDir()
	for _, e := range floors {
		out := filepath.Join(dir, "floor-"+e.name+".json")
		args := append(append([]string{"floor", target, "--engine", e.name, "--out", out, "--cases", strings.Join(measured, ",")}, flags...),
			"--runs", "1", "--samples", "1", "--min-time", "1ms", "--warmup", "1ms") // after flags: the last of a flag counts
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("bench-bridge %s: exit %d\nstdout:\n%s\nstderr:\n%s\ndevice:\n%s", strings.Join(args, " "), code, stdout, stderr, log())
		}
		a := readArtifact(t, out)
		if a.Engine.Name != e.name || a.Engine.Version != e.version || !a.Complete || len(a.Failures) > 0 ||
			len(a.Cases) != 1+len(measured) || a.Cases[0].Name != cases.RefCase {
			t.Fatalf("%s: engine %+v, complete=%v, failures %+v, cases %d: want %s %s, the reference loop and %v",
				out, a.Engine, a.Complete, a.Failures, len(a.Cases), e.name, e.version, measured)
		}
		line := e.name + " on " + target + " (emulated, beside other tests):"
		for _, name := range append([]string{cases.RefCase}, measured...) {
			c := a.Case(name)
			if c == nil || c.MedianNs <= 0 || len(c.SamplesNs) != 1 {
				t.Errorf("%s: %s not measured: %+v", a.Label(), name, c)
				continue
			}
			line += fmt.Sprintf(" %s %.0f ns", name, c.MedianNs)
		}
		if tc := a.Device.Compiler + " " + a.Device.CFlags; !strings.Contains(tc, built) || !a.Device.Emulated {
			t.Errorf("%s: built by %q, emulated %v: want %s, emulated", a.Label(), tc, a.Device.Emulated, built)
		}
		t.Log(line)
	}
}

// TestAndroidEngineFloors runs the Duktape and MuJS floors on Android (real adbd, arm64 through binfmt), as
// TestAndroidEndToEnd runs QuickJS's.
func TestAndroidEngineFloors(t *testing.T) {
	dev := android(t)
	engineFloorsOn(t, "android", cFloors, "aarch64-linux-gnu-gcc", engineCases, nil, dev.Log)
	assertCleanedUp(t, dev.Root())
}

// TestWebOSEngineFloors runs the Duktape and MuJS floors on the dropbear board (webos: ARMv7 softfp, armel, through
// binfmt), as TestWebOSOnBoard runs QuickJS's.
func TestWebOSEngineFloors(t *testing.T) {
	b, flags := webosBoard(t)
	engineFloorsOn(t, "webos", cFloors, "arm-linux-gnueabi", engineCases, flags, b.Log)
}

// TestLibraryEngineFloorOnABoard runs the floor over this machine's JavaScriptCore on an ssh board of this machine's
// architecture: on the dropbear board, which has no JavaScriptCore, the floor is refused before it runs, naming the
// library and this machine's package of it, and doctor says the same; on a board that has the floor's shared
// libraries (this machine's, copied in as a Debian board with the package installed has them) it measures, built
// dynamically against the library by the host's compiler.
func TestLibraryEngineFloorOnABoard(t *testing.T) {
	requireCC(t)
	requireEngine(t, engines.JSC)
	if runtime.GOARCH != "amd64" {
		t.Skip("the dropbear board's userland is x86_64")
	}
	libs := build.EngineLibraries(context.Background(), engines.JSC)
	pkgs := build.LibraryPackages(context.Background(), libs)
	if len(libs) == 0 || len(pkgs) == 0 {
		t.Fatalf("JavaScriptCore's libraries %v, packages %v: want both found on this machine", libs, pkgs)
	}
	floorArgs := func(b *devroot.Board, out string) []string {
		return append([]string{"floor", "ssh", b.Host(), "--engine", engines.JSC, "--out", out}, boardFlags(b)...)
	}

	bare := sharedBoard.Get(t)
	stdout, stderr, code := run(t, floorArgs(bare, filepath.Join(t.TempDir(), "bare.json"))...)
	if code != 1 || !strings.Contains(stderr, "the device has no "+libs[0]) || !strings.Contains(stderr, "apt-get install "+pkgs[0]) {
		t.Errorf("floor --engine jsc on a board without the library: exit %d, want 1 naming %s and %s\nstdout:\n%s\nstderr:\n%s", code, libs[0], pkgs[0], stdout, stderr)
	}
	stdout, stderr, _ = run(t, "doctor", "ssh", bare.Host(), "--identity", bare.Identity, "--known-hosts", bare.KnownHosts)
	if !strings.Contains(stdout, "absent   "+bare.Addr+" engine jsc") || !strings.Contains(stdout, "apt-get install "+pkgs[0]) {
		t.Errorf("doctor ssh of a board without JavaScriptCore does not name it and %s:\n%s\n%s", pkgs[0], stdout, stderr)
	}

	prog, err := build.BuildEngineFloor(context.Background(), build.Host(), engines.JSC, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b := devroot.StartBoardWith(t, prog.Path)
	out := filepath.Join(t.TempDir(), "board.json")
	stdout, stderr, code = run(t, floorArgs(b, out)...)
	if code != 0 {
		t.Fatalf("floor --engine jsc on a board with the library: exit %d\nstdout:\n%s\nstderr:\n%s\nboard:\n%s", code, stdout, stderr, b.Log())
	}
	a := readArtifact(t, out)
	if a.Engine.Name != engines.JSC || !a.Complete || len(a.Failures) > 0 || a.Target != b.Addr || len(a.Cases) != 2 || a.Device.Emulated {
		t.Errorf("%s: engine %+v, complete=%v, target %q, %d cases, emulated %v, failures %+v", a.Label(), a.Engine, a.Complete, a.Target, len(a.Cases), a.Device.Emulated, a.Failures)
	}
	stdout, _, _ = run(t, "doctor", "ssh", b.Host(), "--identity", b.Identity, "--known-hosts", b.KnownHosts)
	if !strings.Contains(stdout, "ok       "+b.Addr+" engine jsc") {
		t.Errorf("doctor ssh of a board with JavaScriptCore's libraries does not say so:\n%s", stdout)
	}
}
