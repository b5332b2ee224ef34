// Package wasmtime holds the check of the Wasmtime floor (floor/floor_wasmtime.c) against Wasmtime itself: a plain C
// loop written straight against wasmtime.h, outside the harness (testdata/plain.c).
package wasmtime

import (
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// minTime and runs are each loop's: runs of at least minTime, the least ns/op kept.
const (
	minTime = 20 * time.Millisecond
	runs    = 5
)

// commandTimeout bounds each program the test runs.
const commandTimeout = 2 * time.Minute

// output runs name with args within commandTimeout and returns its stdout.
func output(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// plainRatio runs the plain loop once: the least ns/op of ref_js_loop's loop and of script_to_host_scalar's.
func plainRatio(t *testing.T, plain, guest string) (refNs, scalarNs float64) {
	f := strings.Fields(output(t, plain, guest, strconv.FormatInt(minTime.Nanoseconds(), 10), strconv.Itoa(runs)))
	if len(f) != 4 || f[0] != "ref" || f[2] != "scalar" {
		t.Fatalf("the plain loop printed %q, want ref NS scalar NS", f)
	}
	refNs, err1 := strconv.ParseFloat(f[1], 64)
	scalarNs, err2 := strconv.ParseFloat(f[3], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("the plain loop printed %q", f)
	}
	return refNs, scalarNs
}

// floorRatio runs the floor on script_to_host_scalar, with ref_js_loop beside every sample, as the runner does: the
// least ns/op of the ref records and of the samples.
func floorRatio(t *testing.T, floor string) (refNs, scalarNs float64) {
	ns := strconv.FormatInt(minTime.Nanoseconds(), 10)
	out := output(t, floor, "run", "--samples", strconv.Itoa(runs), "--min-time-ns", ns, "--warmup-ns", ns,
		"--ref", "ref_js_loop", "script_to_host_scalar")
	refNs, scalarNs = math.Inf(1), math.Inf(1)
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[1] != "script_to_host_scalar" || (f[0] != "ref" && f[0] != "sample") {
			continue
		}
		ops, _ := strconv.ParseFloat(f[2], 64)
		d, _ := strconv.ParseFloat(f[3], 64)
		if f[0] == "ref" {
			refNs = min(refNs, d/ops)
		} else {
			scalarNs = min(scalarNs, d/ops)
		}
	}
	if math.IsInf(refNs, 1) || math.IsInf(scalarNs, 1) {
		t.Fatalf("the floor printed no ref or sample records:\n%s", out)
	}
	return refNs, scalarNs
}

// TestFloorIsThePlainLoop: the Wasmtime floor's ×ref of script_to_host_scalar is within 1.5x of a plain C loop's over
// the same guest, against the same library (a proof: scripts/test runs it alone). Each is measured twice, one after
// the other, so that the machine's state falls on both.
func TestFloorIsThePlainLoop(t *testing.T) {
	testenv.SkipInShort(t, "times the floor against a plain loop")
	cc := testenv.Require(t, "gcc", "apt-get install gcc libc6-dev (scripts/setup does it)")
	e, err := engines.Lookup(engines.Wasmtime)
	if err != nil {
		t.Fatal(err)
	}
	if st := e.Check(engines.Local()); !st.Have {
		testenv.Missing(t, e.Title+": "+st.Detail+": "+st.Fix)
	}
	ctx := context.Background()
	compile, link, err := build.EngineCompileFlags(ctx, build.Host(), engines.Wasmtime, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	guest, err := build.WasmGuest(ctx, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := build.BuildEngineFloor(ctx, build.Host(), engines.Wasmtime, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	output(t, cc, slices.Concat([]string{"-O2", "-Wall", "-Wextra", "-Werror"}, compile, []string{filepath.Join("testdata", "plain.c")},
		link, []string{"-o", plain})...)

	plainRef, plainScalar, floorRef, floorScalar := math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
	for range 2 {
		r, s := plainRatio(t, plain, guest)
		plainRef, plainScalar = min(plainRef, r), min(plainScalar, s)
		r, s = floorRatio(t, floor.Path)
		floorRef, floorScalar = min(floorRef, r), min(floorScalar, s)
	}
	plainX, floorX := plainScalar/plainRef, floorScalar/floorRef
	t.Logf("plain loop: ref_js_loop %.2f ns/op, script_to_host_scalar %.2f ns/op, ×ref %.2f", plainRef, plainScalar, plainX)
	t.Logf("floor:      ref_js_loop %.2f ns/op, script_to_host_scalar %.2f ns/op, ×ref %.2f (%.2fx the plain loop's)",
		floorRef, floorScalar, floorX, floorX/plainX)
	if r := floorX / plainX; r > 1.5 || r < 1/1.5 {
		t.Errorf("the floor's ×ref %.2f is %.2fx the plain loop's %.2f: not within 1.5x", floorX, r, plainX)
	}
}
