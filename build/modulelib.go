package build

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/hint"
)

// The floor of an engine whose library a Go module carries (engines.Engine's Library: Wasmtime's, in wasmtime-go) is
// a C program on the harness, linked statically against the module's prebuilt library for the toolchain's target.
// The go command fetches the module into its module cache once per machine, checked against the go.sum bench-bridge
// embeds (benchbridge.GoSources), and the floor links it from there: the module is never compiled into bench-bridge.

// moduleFetchTimeout bounds the go command's fetch of a module's zip (wasmtime-go's is about 55 MB).
const moduleFetchTimeout = 10 * time.Minute

// moduleDir is where the go command keeps m unpacked, fetched first when its module cache lacks it: `go mod download`
// in a module of bench-bridge's own go.mod and go.sum (written once into the cache), so that the zip is checked
// against go.sum, from any directory.
func moduleDir(ctx context.Context, m engines.GoModule, log io.Writer) (string, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return "", hint.With(fmt.Errorf("the go command is not on PATH, which fetches %s", m.Path), "install Go 1.26 or later from https://go.dev/dl/")
	}
	mod, err := pinningModule()
	if err != nil {
		return "", err
	}
	// Offline first: a module already in the cache is neither fetched nor announced.
	dir, err := goModDownload(ctx, mod, m, "GOPROXY=off")
	if err == nil {
		return dir, nil
	}
	fmt.Fprintf(log, "fetching the Go module %s %s with go mod download (once per machine, into Go's module cache)\n", m.Path, m.Version)
	ctx, cancel := context.WithTimeout(ctx, moduleFetchTimeout)
	defer cancel()
	return goModDownload(ctx, mod, m)
}

// goModDownload runs `go mod download -json` of m in the module folder mod, with env added, and returns its Dir.
func goModDownload(ctx context.Context, mod string, m engines.GoModule, env ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", m.Path+"@"+m.Version)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), append([]string{"GOWORK=off", "GOFLAGS=-mod=readonly"}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Error != "" || runErr != nil || info.Dir == "" {
		why := strings.TrimSpace(info.Error + "\n" + stderr.String())
		if why == "" && runErr != nil {
			why = runErr.Error()
		}
		return "", fmt.Errorf("go mod download %s@%s: %s", m.Path, m.Version, why)
	}
	return info.Dir, nil
}

// pinningModule is a folder of the cache holding bench-bridge's go.mod and go.sum alone, which pin every module it
// fetches: written once per content.
func pinningModule() (string, error) {
	files := map[string][]byte{}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := benchbridge.GoSources.ReadFile(f)
		if err != nil {
			return "", err
		}
		files[f] = b
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "gomod", hashOf(string(files["go.mod"]), string(files["go.sum"])))
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// go.mod first, go.sum last and each by rename: a folder with go.sum is complete.
	for _, f := range []string{"go.mod", "go.sum"} {
		tmp, err := os.CreateTemp(dir, f+".tmp*")
		if err != nil {
			return "", err
		}
		_, werr := tmp.Write(files[f])
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), filepath.Join(dir, f))
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return "", werr
		}
	}
	return dir, nil
}

// moduleLibrary says which of l's libraries tc links, by tc's Go target, or why none: the target has none, or tc
// links another C library than the one it was built against (the NDK's bionic).
func moduleLibrary(engine string, l *engines.ModuleLibrary, tc Toolchain) (string, error) {
	refuse := func(target string) error {
		return fmt.Errorf("the %s floor links the library of the Go module %s %s, which has none for the %s toolchain (%s): %s",
			engine, l.Module.Path, l.Module.Version, tc.Name, target, l.Why)
	}
	if strings.HasPrefix(tc.Name, "ndk-") {
		return "", refuse("Android's NDK, bionic: unset ANDROID_NDK_HOME to build with Debian's cross compiler")
	}
	target, err := GoTargetOf(tc)
	if err != nil {
		return "", refuse(tc.Name)
	}
	lib, ok := l.Libs[target.GOOS+"/"+target.GOARCH]
	if !ok || target.GOARM != "" {
		return "", refuse(target.GOOS + "/" + target.GOARCH)
	}
	return lib, nil
}

// libraryFlags are what compile and link e's floor for tc against the library its Go module carries: the module's
// headers, the library and the system libraries it needs; the module is fetched when Go's cache lacks it.
func libraryFlags(ctx context.Context, tc Toolchain, e engines.Engine, log io.Writer) (engineFlags, error) {
	l := e.Library
	lib, err := moduleLibrary(e.Name, l, tc)
	if err != nil {
		return engineFlags{}, err
	}
	dir, err := moduleDir(ctx, l.Module, log)
	if err != nil {
		return engineFlags{}, fmt.Errorf("the %s floor: %w", e.Name, err)
	}
	path := filepath.Join(dir, filepath.FromSlash(lib))
	if _, err := os.Stat(path); err != nil {
		return engineFlags{}, fmt.Errorf("the %s floor: the Go module %s %s has no %s: %w", e.Name, l.Module.Path, l.Module.Version, lib, err)
	}
	return engineFlags{compile: []string{"-D" + e.Floor.Define}, include: filepath.Join(dir, filepath.FromSlash(l.Include)),
		link: append([]string{path}, l.Link...), version: l.Module.Path + " " + l.Module.Version}, nil
}
