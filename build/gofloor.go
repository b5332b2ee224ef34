package build

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/hint"
)

// The floor of an engine embedded in Go (engines.Floor's GoPackage: goja, QuickJS in Go) is a Go program on the Go
// harness, built with go build for the target: its GOOS, GOARCH and, for 32-bit ARM, GOARM come from the target's
// toolchain (GoTargetOf), and cgo is off, so the program is static and needs no C toolchain anywhere. It is built
// from bench-bridge's own sources (benchbridge.GoSources and CSources, written out as a module with the go.mod and
// go.sum that pin the engines), so an installed bench-bridge builds it from any directory; the go command fetches the
// engines' modules on first use. The binary is cached under the sources, Go's version and the target.

// goBuildTimeout bounds one go build of a floor: the first fetches the engines' modules and compiles them (QuickJS in
// Go is a large package, about 20 s a target on a 2-core machine; a fresh root took minutes).
const goBuildTimeout = 15 * time.Minute

// GoTarget is what go build builds for: GOOS, GOARCH and GOARM ("" but for 32-bit ARM).
type GoTarget struct {
	GOOS, GOARCH, GOARM string
}

// Env is the target as go build's environment, cgo off.
func (g GoTarget) Env() []string {
	env := []string{"GOOS=" + g.GOOS, "GOARCH=" + g.GOARCH, "CGO_ENABLED=0"}
	if g.GOARM != "" {
		env = append(env, "GOARM="+g.GOARM)
	}
	return env
}

func (g GoTarget) String() string {
	return strings.Join(g.Env(), " ")
}

// goTargets are the Go targets of the toolchains: a program of each runs where a static C program of the toolchain
// does (GOOS linux for Android too: a static Linux program runs there as the C floors do).
var goTargets = map[string]GoTarget{
	"aarch64": {"linux", "arm64", ""},
	"x86_64":  {"linux", "amd64", ""},
	"x86":     {"linux", "386", ""},
	"armv7":   {"linux", "arm", "7"},
	"webos":   {"linux", "arm", "7"}, // ARMv7 with VFPv3-D16: Go's arm port uses 16 double registers
	"armv6":   {"linux", "arm", "6"},
	"armel":   {"linux", "arm", "5"}, // any 32-bit ARM from ARMv5TE on, soft float
}

// GoTargetOf is the Go target of a toolchain: this machine's for the host's, else the one of its name (an NDK's
// toolchain, ndk-aarch64, is aarch64's).
func GoTargetOf(tc Toolchain) (GoTarget, error) {
	if tc.Name == Host().Name {
		return GoTarget{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}, nil
	}
	if g, ok := goTargets[strings.TrimPrefix(tc.Name, "ndk-")]; ok {
		return g, nil
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range goTargets {
			if !yield(n) {
				return
			}
		}
	})
	return GoTarget{}, fmt.Errorf("no Go target for toolchain %s (go build knows host, %s)", tc.Name, strings.Join(names, ", "))
}

// GoFloors are the engines whose floor is a Go program (engines.Floor's GoPackage), sorted.
func GoFloors() []string {
	var names []string
	for _, e := range engines.All {
		if e.Floor != nil && e.Floor.GoPackage != "" {
			names = append(names, e.Name)
		}
	}
	slices.Sort(names)
	return names
}

// goSources are the files a Go floor is built from, by their path in the module: the Go files of
// benchbridge.GoPackages (no test files), go.mod and go.sum, and every C file the root package embeds.
func goSources() (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := benchbridge.GoSources.ReadFile(f)
		if err != nil {
			return nil, err
		}
		files[f] = b
	}
	for _, dir := range benchbridge.GoPackages {
		entries, err := fs.ReadDir(benchbridge.GoSources, dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || strings.HasSuffix(name, "_test.go") || !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".s")) {
				continue
			}
			p := path.Join(dir, name)
			if files[p], err = benchbridge.GoSources.ReadFile(p); err != nil {
				return nil, err
			}
		}
	}
	err := fs.WalkDir(benchbridge.CSources, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files[p], err = benchbridge.CSources.ReadFile(p)
		return err
	})
	return files, err
}

// goVersion is the go command's version ("go1.26.8"), which a Go floor's cache key holds.
func goVersion(ctx context.Context) (string, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return "", hint.With(fmt.Errorf("the go command is not on PATH"), "install Go 1.26 or later from https://go.dev/dl/")
	}
	out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// BuildGoFloor builds the floor of e, an engine embedded in Go, for tc's Go target, or returns the cached one built
// from the same sources with the same Go for the same target.
func BuildGoFloor(ctx context.Context, tc Toolchain, e engines.Engine, log io.Writer) (*Binary, error) {
	target, err := GoTargetOf(tc)
	if err != nil {
		return nil, fmt.Errorf("the %s floor: %w", e.Name, err)
	}
	version, err := goVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("the %s floor is built with go: %w", e.Name, err)
	}
	files, err := goSources()
	if err != nil {
		return nil, err
	}
	if e.Floor.WasmGuest {
		if files[wasmGuestFile], err = compiledGuest(ctx, log); err != nil {
			return nil, fmt.Errorf("the %s floor: %w", e.Name, err)
		}
	}
	pkg := e.Floor.GoPackage
	if !slices.Contains(benchbridge.GoPackages, pkg) {
		return nil, fmt.Errorf("the %s floor's package %s is not among the Go sources bench-bridge holds (benchbridge.GoPackages)", e.Name, pkg)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	key := []string{version, target.String(), pkg, e.Floor.GoTags}
	for _, n := range names {
		key = append(key, n, string(files[n]))
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cache, "gofloor", e.Name+"-"+target.GOOS+"-"+target.GOARCH+target.GOARM+"-"+hashOf(key...))
	bin := filepath.Join(dir, artifact.ProgramFloor+"-"+e.Name)
	prog := &Binary{Kind: artifact.ProgramFloor, Path: bin, Compiler: version, CFlags: target.String() + " -trimpath"}
	if _, err := os.Stat(bin); err == nil {
		return prog, nil
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return prog, nil
	}
	fmt.Fprintf(log, "building the %s floor with %s for %s (once per target; the first build fetches and compiles the engine)\n", e.Name, version, target)
	src, err := os.MkdirTemp(cache, "gofloor-src-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(src)
	for _, n := range names {
		p := filepath.Join(src, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	args := []string{"build", "-trimpath", "-o", bin + ".tmp"}
	if e.Floor.GoTags != "" {
		args = append(args, "-tags", e.Floor.GoTags)
	}
	ctx, cancel := context.WithTimeout(ctx, goBuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(args, "./"+pkg)...)
	cmd.Dir = src
	// The module's own go.mod and go.sum decide every version: no workspace, no vendor folder, no change to them.
	cmd.Env = append(os.Environ(), append(target.Env(), "GOWORK=off", "GOFLAGS=-mod=readonly")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("building the %s floor (go build ./%s, %s): %w\n%s", e.Name, pkg, target, err, strings.TrimSpace(string(out)))
	}
	return prog, os.Rename(bin+".tmp", bin)
}

// wasmGuestFile is where a Go floor over the WebAssembly guest finds it compiled: package floor/wasm embeds it.
const wasmGuestFile = "floor/wasm/guest.wasm"

// compiledGuest is the WebAssembly guest, compiled (WasmGuest).
func compiledGuest(ctx context.Context, log io.Writer) ([]byte, error) {
	path, err := WasmGuest(ctx, log)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}
