package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/hint"
)

// wat2wasmTimeout bounds one run of wat2wasm (or of its --version): the guest is a few hundred lines.
var wat2wasmTimeout = time.Minute

// wabtFix is what installs wat2wasm.
const wabtFix = "apt-get install wabt (wat2wasm, the WebAssembly text compiler; scripts/setup does it)"

// WasmGuest compiles the WebAssembly guest of the WebAssembly floors (benchbridge.WasmGuest, floor/wasm/guest.wat,
// whose header is the contract between it and every host) with wat2wasm, once into the build cache, keyed by the
// text and wat2wasm's version, and returns the path of guest.wasm. The module keeps its functions' names (a trap's
// stack names them). log receives a line when it compiles.
func WasmGuest(ctx context.Context, log io.Writer) (string, error) {
	wat, err := benchbridge.CSources.ReadFile(benchbridge.WasmGuest)
	if err != nil {
		return "", err
	}
	version, err := wat2wasmVersion(ctx)
	if err != nil {
		return "", err
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "wasm-guest", hashOf(version, string(wat)))
	out := filepath.Join(dir, "guest.wasm")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	fmt.Fprintf(log, "compiling the WebAssembly guest (%s) with wat2wasm %s\n", benchbridge.WasmGuest, version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src := filepath.Join(dir, "guest.wat")
	if err := os.WriteFile(src, wat, 0o644); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, wat2wasmTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "wat2wasm", "--debug-names", "-o", out+".tmp", src)
	if b, err := cmd.CombinedOutput(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no result within %s", wat2wasmTimeout)
		}
		return "", fmt.Errorf("wat2wasm %s: %w\n%s", benchbridge.WasmGuest, err, strings.TrimSpace(string(b)))
	}
	return out, os.Rename(out+".tmp", out)
}

// wat2wasmVersion is wat2wasm's version ("1.0.32"), or an error that names wabt when wat2wasm is not there.
func wat2wasmVersion(ctx context.Context) (string, error) {
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		return "", hint.With(fmt.Errorf("the WebAssembly guest is compiled with wat2wasm (Debian's wabt), which is not on PATH"), wabtFix)
	}
	ctx, cancel := context.WithTimeout(ctx, wat2wasmTimeout)
	defer cancel()
	b, err := exec.CommandContext(ctx, "wat2wasm", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("wat2wasm --version: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
