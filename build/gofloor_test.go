package build

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestGoTargetOf: each toolchain's Go target, an NDK's as its ABI's, and none for a toolchain go cannot build for.
func TestGoTargetOf(t *testing.T) {
	for name, want := range map[string]string{"aarch64": "GOOS=linux GOARCH=arm64 CGO_ENABLED=0",
		"ndk-aarch64": "GOOS=linux GOARCH=arm64 CGO_ENABLED=0", "armel": "GOOS=linux GOARCH=arm CGO_ENABLED=0 GOARM=5",
		"webos": "GOOS=linux GOARCH=arm CGO_ENABLED=0 GOARM=7", "x86": "GOOS=linux GOARCH=386 CGO_ENABLED=0"} {
		if g, err := GoTargetOf(Toolchain{Name: name}); err != nil || g.String() != want {
			t.Errorf("%s: %v, %v; want %s", name, g, err, want)
		}
	}
	if _, err := GoTargetOf(Toolchain{Name: "riscv"}); err == nil || !strings.Contains(err.Error(), "no Go target for toolchain riscv") {
		t.Errorf("riscv: %v", err)
	}
	if got := GoFloors(); !slices.Equal(got, []string{engines.Goja, engines.QuickJSGo, engines.Wazero, engines.WazeroInterp}) || slices.ContainsFunc(EngineFloors(), func(e string) bool { return slices.Contains(got, e) }) {
		t.Errorf("GoFloors %v, EngineFloors %v", got, EngineFloors())
	}
}

// TestGoSourcesHoldTheGoFloors: the Go sources bench-bridge embeds (benchbridge.GoPackages) are every package of
// this module a Go floor imports, so that an installed bench-bridge builds the floors from them.
func TestGoSourcesHoldTheGoFloors(t *testing.T) {
	testenv.Require(t, "go", "install Go from https://go.dev/dl/")
	var pkgs []string
	for _, name := range GoFloors() {
		e, _ := engines.Lookup(name)
		pkgs = append(pkgs, "./"+e.Floor.GoPackage)
	}
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, pkgs...)...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/bench-bridge/bench-bridge"
	for _, p := range strings.Fields(string(out)) {
		if p != module && !strings.HasPrefix(p, module+"/") {
			continue
		}
		dir := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		if dir == "" {
			dir = "."
		}
		if !slices.Contains(benchbridge.GoPackages, dir) {
			t.Errorf("a Go floor imports %s, which benchbridge.GoPackages (and GoSources' embed patterns) lack", p)
		}
	}
}

// TestGoFloorsCrossBuild builds each Go floor for linux/arm64 and linux/arm (GOARM=5) with go alone, cgo off (no C
// toolchain), checks that each is a static program of its architecture, and runs one case of each once where
// qemu-user is registered with binfmt_misc (scripts/setup installs qemu-user-static).
func TestGoFloorsCrossBuild(t *testing.T) {
	testenv.SkipInShort(t, "builds the Go floors for ARM and runs them under qemu")
	testenv.Require(t, "go", "install Go from https://go.dev/dl/")
	for _, tc := range []struct {
		toolchain, qemu, goarm string
		machine                elf.Machine
	}{{"aarch64", "qemu-aarch64", "", elf.EM_AARCH64}, {"armel", "qemu-arm", "5", elf.EM_ARM}} {
		for _, name := range GoFloors() {
			t.Run(name+"-"+tc.toolchain, func(t *testing.T) {
				e, _ := engines.Lookup(name)
				prog, err := BuildGoFloor(context.Background(), Toolchains[tc.toolchain], e, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				f, err := elf.Open(prog.Path)
				if err != nil {
					t.Fatal(err)
				}
				static := !slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
				f.Close()
				if f.Machine != tc.machine || !static {
					t.Errorf("%s is for %v, static %v; want %v, static", prog.Path, f.Machine, static, tc.machine)
				}
				info, err := buildinfo.ReadFile(prog.Path)
				if err != nil {
					t.Fatal(err)
				}
				settings := map[string]string{}
				for _, s := range info.Settings {
					settings[s.Key] = s.Value
				}
				if settings["CGO_ENABLED"] != "0" || settings["GOARM"] != tc.goarm || !strings.Contains(prog.CFlags, "CGO_ENABLED=0") {
					t.Errorf("built with %v (recorded: %s), want cgo off and GOARM %q", settings, prog.CFlags, tc.goarm)
				}
				out := runUnderQEMU(t, tc.qemu, prog.Path)
				if want := wazeroEngine(name, tc.toolchain); want != "" && !bytes.Contains(out, []byte("\nmeta wazero_engine "+want+"\n")) {
					t.Errorf("%s on %s ran no meta wazero_engine %s:\n%s", name, tc.toolchain, want, out)
				}
			})
		}
	}
}

// wazeroEngine is the engine a wazero floor says it ran on a toolchain's target: wazero's compiler on arm64, its
// interpreter on 32-bit ARM (wazero has no compiler there) and for wazero-interp; "" for the other floors.
func wazeroEngine(floor, toolchain string) string {
	switch {
	case floor == engines.Wazero && toolchain == "aarch64":
		return "compiler"
	case floor == engines.Wazero || floor == engines.WazeroInterp:
		return "interpreter"
	}
	return ""
}

// runUnderQEMU runs one case of an ARM program once through binfmt_misc's qemu-user, as a board would run it, and
// returns what it printed.
func runUnderQEMU(t *testing.T, qemu, prog string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc/sys/fs/binfmt_misc", qemu))
	if err != nil || !bytes.HasPrefix(b, []byte("enabled")) {
		testenv.Missing(t, qemu+" is not registered with binfmt_misc: apt-get install qemu-user-static (scripts/setup does it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, prog, "run", "--samples", "1", "--min-time-ns", "1000000", "--warmup-ns", "0",
		"script_to_host_scalar").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("\nsample script_to_host_scalar ")) || !bytes.Contains(out, []byte("\nend script_to_host_scalar\n")) {
		t.Errorf("%s under %s: %v\n%s", prog, qemu, err, out)
	}
	return out
}
