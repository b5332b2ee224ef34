// Package build turns the embedded C sources into bench programs for a toolchain: it fetches and verifies QuickJS's
// source, builds the library once per toolchain and flags, and links the floor and bridge programs, caching both.
package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/hint"
)

// quickJS is the default engine, QuickJS: the engine of the reference bridge and of the reference floor.
var quickJS = mustLookup(engines.Default)

// quickJSSource is where the pinned QuickJS comes from.
var quickJSSource = sourceOf(quickJS)

// mustLookup is the engine of that name in engines.All, which must have it.
func mustLookup(name string) engines.Engine {
	e, err := engines.Lookup(name)
	if err != nil {
		panic(err)
	}
	return e
}

// EnvQuickJSSrc names the environment variable that points at a user's own QuickJS source tree.
const EnvQuickJSSrc = "BENCH_BRIDGE_QUICKJS_SRC"

// CacheDir is where bench-bridge keeps QuickJS's source, built libraries and programs.
func CacheDir() (string, error) {
	if d := os.Getenv("BENCH_BRIDGE_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set BENCH_BRIDGE_CACHE): %w", err)
	}
	return filepath.Join(d, "bench-bridge"), nil
}

// QuickJSSource returns a QuickJS source tree: explicit (a flag or the config) first, then $BENCH_BRIDGE_QUICKJS_SRC,
// then the pinned release in the cache, fetched on first use. log receives one line per slow step.
func QuickJSSource(ctx context.Context, explicit string, log io.Writer) (string, error) {
	for _, dir := range []string{explicit, os.Getenv(EnvQuickJSSrc)} {
		if dir == "" {
			continue
		}
		if err := checkQuickJSTree(dir); err != nil {
			return "", err
		}
		return filepath.Abs(dir)
	}
	dir, err := quickJSSource.get(ctx, log)
	if err != nil {
		return "", hint.With(err,
			fmt.Sprintf("install apt-get's Debian tools, or point --quickjs-src (or %s) at a QuickJS %s source tree", EnvQuickJSSrc, quickJSSource.Version))
	}
	return dir, nil
}

// CachedQuickJS returns the pinned release's directory in the cache, if it has been fetched.
func CachedQuickJS() (string, bool) {
	return quickJSSource.cached()
}

// checkQuickJSTree says whether dir looks like a QuickJS source tree we can build.
func checkQuickJSTree(dir string) error {
	return quickJSSource.check(dir)
}

// runIn runs a command in dir and returns an error that carries its output when it fails.
func runIn(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail(out, 2000))
	}
	return nil
}

// tail returns the last n bytes of b as a string.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}
