package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/internal/devroot"
)

// TestGoEngineFloors measures the floor of each engine embedded in Go (goja, QuickJS in Go) on this machine, every
// case of the catalogue once with the smallest settings: built with go alone, the artifact names the engine at the
// version go.mod pins and the Go that built it, no case is missing or failed, and the memory records count the Go
// heap's allocations as the host's (the engine's are not told apart). bench-bridge check passes the floor.
func TestGoEngineFloors(t *testing.T) {
	requireGo(t)
	for _, name := range build.GoFloors() {
		t.Run(name, func(t *testing.T) {
			e, err := engines.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "floor.json")
			stdout, stderr, code := run(t, "floor", localName(), "--engine", name, "--runs", "1", "--samples", "1", "--min-time", "1ms", "--out", out)
			if code != 0 {
				t.Fatalf("floor --engine %s: exit %d\n%s\n%s", name, code, stdout, stderr)
			}
			a := readArtifact(t, out)
			if a.Engine.Name != name || a.Engine.Version != strings.TrimPrefix(e.GoModule.Version, "v") || !a.Complete || len(a.Failures) > 0 ||
				len(a.Cases) != len(cases.Catalogue) || len(a.NotImplemented) > 0 {
				t.Fatalf("artifact: engine %+v complete=%v, %d cases, failures %+v, not implemented %v", a.Engine, a.Complete, len(a.Cases), a.Failures, a.NotImplemented)
			}
			if !strings.HasPrefix(a.Device.Compiler, "go1.") || !strings.Contains(a.Device.CFlags, "CGO_ENABLED=0") || a.Cases[0].Name != cases.RefCase {
				t.Errorf("built with %q %q, first case %s", a.Device.Compiler, a.Device.CFlags, a.Cases[0].Name)
			}
			if m := a.Case("host_to_script_object").Memory; m == nil || m.HostAllocsPerOp == nil || m.EngineAllocsPerOp != nil {
				t.Errorf("host_to_script_object's memory: %+v, want the Go heap's counts as the host's", m)
			}
			prog, err := build.BuildEngineFloor(context.Background(), build.Host(), name, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if stdout, stderr, code := run(t, "check", prog.Path); code != 0 || !strings.Contains(stdout, "speaks the protocol") {
				t.Errorf("bench-bridge check of the %s floor: exit %d\n%s%s", name, code, stdout, stderr)
			}
		})
	}
}

// goCases are what a Go floor measures on a device, besides the reference loop: a crossing, to prove that the
// program built for the device runs there.
var goCases = []string{"script_to_host_scalar"}

// goFloorsFor are the engines embedded in Go (build.GoFloors, so that a new one joins) at the release go.mod pins, and
// the Go target their floors are built for with toolchain, as the artifact's compiler flags say it.
func goFloorsFor(t *testing.T, toolchain string) (floors []engineRelease, built string) {
	t.Helper()
	for _, name := range build.GoFloors() {
		e, err := engines.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		floors = append(floors, engineRelease{name, strings.TrimPrefix(e.GoModule.Version, "v")})
	}
	target, err := build.GoTargetOf(build.Toolchains[toolchain])
	if err != nil {
		t.Fatal(err)
	}
	return floors, target.String()
}

// withoutCToolchain leaves on PATH, for the rest of t, every command it had but C compilers, assemblers and linkers,
// the host's and the cross ones: a machine with Go and no C toolchain, where a Go floor still builds and runs. A folder
// on PATH that holds one of them is replaced by a folder of links to its other commands.
func withoutCToolchain(t *testing.T) {
	t.Helper()
	var path []string
	seen := map[string]bool{}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		folder, err := filepath.EvalSymlinks(d)
		if err != nil || seen[folder] { // not there, or already on PATH (/bin is /usr/bin)
			continue
		}
		seen[folder] = true
		entries, _ := os.ReadDir(folder)
		if !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return cToolchainCommand.MatchString(e.Name()) }) {
			path = append(path, folder)
			continue
		}
		links := linkDir(t)
		for _, e := range entries {
			if !cToolchainCommand.MatchString(e.Name()) {
				if err := os.Symlink(filepath.Join(folder, e.Name()), filepath.Join(links, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
		path = append(path, links)
	}
	t.Setenv("PATH", strings.Join(path, string(os.PathListSeparator)))
	t.Setenv("CC", "") // nor a compiler named by path
	for _, tc := range append(slices.Collect(maps.Values(build.Toolchains)), build.Host()) {
		if p, err := exec.LookPath(strings.Fields(tc.CC)[0]); err == nil {
			t.Fatalf("toolchain %s's compiler is still on PATH: %s", tc.Name, p)
		}
	}
}

// linkDir is an empty folder for the rest of t, in memory where it can: a link on tmpfs takes microseconds, on this
// machine's disk a millisecond, and a folder of PATH holds a thousand commands.
func linkDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/dev/shm", "bench-bridge-path-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// cToolchainCommand matches a C toolchain's commands, cross (aarch64-linux-gnu-gcc) or versioned (gcc-12) too.
var cToolchainCommand = regexp.MustCompile(`(^|-)(cc|gcc|c\+\+|g\+\+|cpp|clang|clang\+\+|as|ld|ld\.[a-z]+)(-[0-9.]+)?$`)

// requireGoOnDevices is what a Go floor needs to run on a test's device: go, and binfmt for the ARM programs (no C
// cross compiler).
func requireGoOnDevices(t *testing.T) {
	t.Helper()
	requireGo(t)
	devroot.RequireBinfmt(t)
}

// TestAndroidGoEngineFloors measures each Go floor on Android (real adbd, arm64 through binfmt) with no C toolchain on
// PATH: a static program for linux/arm64, built by go alone, pushed and run as the C floors are.
func TestAndroidGoEngineFloors(t *testing.T) {
	requireGoOnDevices(t)
	dev := useAndroid(t, sharedAndroid.Get(t))
	floors, built := goFloorsFor(t, "aarch64")
	withoutCToolchain(t)
	engineFloorsOn(t, "android", floors, built, goCases, nil, dev.Log)
	assertCleanedUp(t, dev.Root())
}

// TestWebOSGoEngineFloors measures each Go floor on the dropbear board (webos: linux/arm GOARM=7 through binfmt),
// uploaded through the shell, as there is no sftp, with no C toolchain on PATH; then goja's and wazero's as the
// floors of an armel board (GOARM=5).
func TestWebOSGoEngineFloors(t *testing.T) {
	requireGoOnDevices(t)
	b := sharedBoard.Get(t)
	floors, built := goFloorsFor(t, "webos")
	withoutCToolchain(t)
	engineFloorsOn(t, "webos", floors, built, goCases, []string{"--host", b.Host(), "--identity", b.Identity, "--known-hosts", b.KnownHosts}, b.Log)
	// The same board as any armel board (ARMv5TE on, soft float: GOARM=5), which a config target names with its
	// toolchain: the floors a user of such a board would choose between, goja and wazero (its interpreter there).
	cfg := filepath.Join(t.TempDir(), "bench-bridge.toml")
	board := fmt.Sprintf("[targets.armel-board]\nkind = \"ssh\"\nhost = %q\ntoolchain = \"armel\"\n", b.Host())
	if err := os.WriteFile(cfg, []byte(board), 0o644); err != nil {
		t.Fatal(err)
	}
	armel, built := goFloorsFor(t, "armel")
	armel = slices.DeleteFunc(armel, func(e engineRelease) bool { return e.name != engines.Goja && e.name != "wazero" })
	engineFloorsOn(t, "armel-board", armel, built, goCases, []string{"--config", cfg, "--identity", b.Identity, "--known-hosts", b.KnownHosts}, b.Log)
}
