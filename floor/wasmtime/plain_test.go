// Package wasmtime holds the check of the Wasmtime floor (floor/floor_wasmtime.c) against Wasmtime itself: a plain C
// loop written straight against wasmtime.h, outside the harness (testdata/plain.c).
package wasmtime

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/floor/internal/plain"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestFloorIsThePlainLoop: the Wasmtime floor's ×ref of script_to_host_scalar is within 1.5x of a plain C loop's over
// the same guest, against the same library (plain.TestWith's comparison; a proof: scripts/test runs it alone).
func TestFloorIsThePlainLoop(t *testing.T) {
	testenv.SkipInShort(t, "times the floor against a plain loop")
	cc := testenv.Require(t, "gcc", "apt-get install gcc libc6-dev (scripts/setup does it)")
	floor := plain.BuiltFloor(t, engines.Wasmtime)
	ctx := context.Background()
	compile, link, err := build.EngineCompileFlags(ctx, build.Host(), engines.Wasmtime, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	guest, err := build.WasmGuest(ctx, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "plain")
	if _, err := plain.Output(cc, slices.Concat([]string{"-O2", "-Wall", "-Wextra", "-Werror"}, compile,
		[]string{filepath.Join("testdata", "plain.c")}, link, []string{"-o", bin})...); err != nil {
		t.Fatal(err)
	}
	plainLoop := func() (refNs, scalarNs float64, err error) {
		out, err := plain.Output(bin, guest, strconv.FormatInt(plain.MinTime.Nanoseconds(), 10), strconv.Itoa(plain.Runs))
		if err == nil {
			_, err = fmt.Sscanf(out, "ref %g scalar %g", &refNs, &scalarNs)
		}
		return refNs, scalarNs, err
	}
	plain.TestWith(t, plainLoop, floor)
}
