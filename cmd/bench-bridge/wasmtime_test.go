package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/engines"
)

// wasmtimeRelease is the Wasmtime floor as an artifact names it: the release of the library go.mod pins.
var wasmtimeRelease = engineRelease{engines.Wasmtime, engines.WasmtimeModule.Short()}

// requireWasmtime skips (fails in CI) where this machine lacks what the Wasmtime floor is built with: a C compiler,
// go (which fetches the module) and wat2wasm (which compiles the guest).
func requireWasmtime(t *testing.T) {
	t.Helper()
	requireCC(t)
	requireEngine(t, engines.Wasmtime)
}

// TestWasmtimeFloor measures the Wasmtime floor on this machine, every case of the catalogue once with the smallest
// settings: the guest hosts them all, none fails, the artifact names Wasmtime at the release go.mod pins, and
// bench-bridge check passes the program.
func TestWasmtimeFloor(t *testing.T) {
	requireWasmtime(t)
	out := filepath.Join(t.TempDir(), "floor.json")
	stdout, stderr, code := run(t, "floor", localName(), "--engine", engines.Wasmtime, "--runs", "1", "--samples", "1",
		"--min-time", "1ms", "--warmup", "1ms", "--out", out)
	if code != 0 {
		t.Fatalf("floor --engine wasmtime: exit %d\n%s\n%s", code, stdout, stderr)
	}
	a := readArtifact(t, out)
	if a.Engine.Name != wasmtimeRelease.name || a.Engine.Version != wasmtimeRelease.version || !a.Complete || len(a.Failures) > 0 ||
		len(a.Cases) != len(cases.Catalogue) || len(a.NotImplemented) > 0 || a.Cases[0].Name != cases.RefCase {
		t.Fatalf("artifact: engine %+v complete=%v, %d cases (first %s), failures %+v, not implemented %v",
			a.Engine, a.Complete, len(a.Cases), a.Cases[0].Name, a.Failures, a.NotImplemented)
	}
	prog, err := build.BuildEngineFloor(context.Background(), build.Host(), engines.Wasmtime, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := run(t, "check", prog.Path); code != 0 || !strings.Contains(stdout, "speaks the protocol") {
		t.Errorf("bench-bridge check of the wasmtime floor: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestAndroidWasmtimeFloor measures the Wasmtime floor on Android (real adbd, arm64 through binfmt): linked
// statically against the module's aarch64 library by Debian's cross compiler, one crossing.
func TestAndroidWasmtimeFloor(t *testing.T) {
	requireWasmtime(t)
	dev := android(t)
	engineFloorsOn(t, "android", []engineRelease{wasmtimeRelease}, "aarch64-linux-gnu-gcc", []string{"script_to_host_scalar"}, nil, dev.Log)
	assertCleanedUp(t, dev.Root())
}

// TestWasmtimeRefusedOnWebOS: on the dropbear board as webos (armel, ARMv7 softfp), which the module has no library
// for, the floor is refused with why before anything is built or pushed.
func TestWasmtimeRefusedOnWebOS(t *testing.T) {
	b, flags := webosBoard(t)
	args := append([]string{"floor", "webos", "--engine", engines.Wasmtime, "--out", filepath.Join(t.TempDir(), "floor.json")}, flags...)
	stdout, stderr, code := run(t, args...)
	want := "the wasmtime floor links the library of the Go module " + engines.WasmtimeModule.Path + " " + engines.WasmtimeModule.Version +
		", which has none for the webos toolchain (linux/arm): the module carries libwasmtime.a for Linux x86_64 and aarch64 only"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("floor webos --engine wasmtime: exit %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s\nboard:\n%s", code, want, stdout, stderr, b.Log())
	}
}
