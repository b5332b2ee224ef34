// Package plain checks a Go floor against its engine itself: a plain Go loop written straight against the same
// engine's documented API, outside the harness, measures ref_js_loop's loop and script_to_host_scalar's call, and
// the floor's ×ref of script_to_host_scalar must be within 1.5x of the plain loop's ratio (the floors' tests, and
// `go test -bench Plain` in each floor's folder for the plain loop's ns/op).
package plain

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/harness"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// The two loops, as cases/c/harness_scripts.c has them: ref_js_loop is script_to_host_scalar's loop with the call
// replaced by its arithmetic.
const (
	RefScript    = "function bench(n) {\n  var s = 0;\n  for (var i = 0; i < n; i++) s = (s + i) % 1000003;\n  return s;\n}\n"
	ScalarScript = "function bench(n) {\n  var s = 0;\n  for (var i = 0; i < n; i++) s = host_add(s, i);\n  return s;\n}\n"
)

// Add is host_add's arithmetic, plain: no crossing hook.
func Add(a, b float64) float64 {
	return math.Mod(a+b, 1000003)
}

// Loop runs a script's bench(n) once.
type Loop func(n uint64) error

// time1 is how long one run of n units takes.
func time1(l Loop, n uint64) (time.Duration, error) {
	t0 := time.Now()
	err := l(n)
	return time.Since(t0), err
}

// units is the number of units of l whose run lasts at least minTime.
func units(l Loop, minTime time.Duration) (uint64, error) {
	for n := uint64(1); ; {
		d, err := time1(l, n)
		if err != nil || d >= minTime || n >= 1e9 {
			return n, err
		}
		n = uint64(float64(n) * min(10, 1.4*float64(minTime)/float64(max(d, 1))))
	}
}

// Ratio times ref and scalar in alternating runs of at least minTime each and returns the least ns/op of each.
func Ratio(ref, scalar Loop, minTime time.Duration, runs int) (refNs, scalarNs float64, err error) {
	loops := []Loop{ref, scalar}
	n, best := make([]uint64, 2), []float64{math.Inf(1), math.Inf(1)}
	for i, l := range loops {
		if n[i], err = units(l, minTime); err != nil {
			return 0, 0, err
		}
	}
	for range runs {
		for i, l := range loops {
			d, err := time1(l, n[i])
			if err != nil {
				return 0, 0, err
			}
			best[i] = min(best[i], float64(d.Nanoseconds())/float64(n[i]))
		}
	}
	return best[0], best[1], nil
}

// FloorArgs are the floor's command line that measures script_to_host_scalar, with ref_js_loop beside every sample.
func FloorArgs(minTime time.Duration, samples int) []string {
	ns := strconv.FormatInt(minTime.Nanoseconds(), 10)
	return []string{"run", "--samples", strconv.Itoa(samples), "--min-time-ns", ns, "--warmup-ns", ns,
		"--ref", "ref_js_loop", "script_to_host_scalar"}
}

// FloorRatio runs the floor's program in this process with FloorArgs and returns the least ns/op of the ref samples
// and of the samples.
func FloorRatio(p harness.Program, minTime time.Duration, samples int) (refNs, scalarNs float64, err error) {
	var out, stderr bytes.Buffer
	if code := harness.Run(p, FloorArgs(minTime, samples), &out, &stderr); code != 0 {
		return 0, 0, fmt.Errorf("the floor exits %d: %s", code, stderr.String())
	}
	return ParseRatio(out.String())
}

// ParseRatio reads what a floor run with FloorArgs printed: the least ns/op of the ref samples and of the samples.
func ParseRatio(out string) (refNs, scalarNs float64, err error) {
	refNs, scalarNs = math.Inf(1), math.Inf(1)
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[1] != "script_to_host_scalar" || (f[0] != "ref" && f[0] != "sample") {
			if len(f) > 0 && f[0] == "error" {
				return 0, 0, fmt.Errorf("the floor: %s", line)
			}
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
		return 0, 0, fmt.Errorf("no ref or sample records:\n%s", out)
	}
	return refNs, scalarNs, nil
}

// OutputTimeout bounds one run of a program of the comparison (a plain loop's, a floor's, a compiler): each times two
// loops for about a second.
const OutputTimeout = 2 * time.Minute

// Output runs program with args within OutputTimeout and returns what it printed; its error says the program, the
// arguments and what the program printed on stderr.
func Output(program string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), OutputTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, program, args...).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("%s %s: %w: %s", program, strings.Join(args, " "), err, ee.Stderr)
	}
	return string(out), err
}

// MinTime and Runs are how long each timed run of a plain loop or of the floor lasts at least, and how many of each
// a comparison's round takes.
const MinTime, Runs = 20 * time.Millisecond, 5

// Measure times ref_js_loop's loop and script_to_host_scalar's call once, Runs runs of at least MinTime each, and
// returns the least ns/op of each.
type Measure func() (refNs, scalarNs float64, err error)

// CompareWith measures the plain loop and the floor, one after the other twice (the machine's state falls on both),
// and says how they compare: an error when the floor's ×ref is not within 1.5x of the plain loop's ratio. The floor
// is a Go program run in this process (FloorRatio) or a program of its own (V8's WebAssembly's, in node), the plain
// loop Go (Ratio) or another language.
func CompareWith(log io.Writer, plainLoop, floor Measure) error {
	plainRef, plainScalar, floorRef, floorScalar := math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
	for range 2 {
		r, s, err := plainLoop()
		if err != nil {
			return fmt.Errorf("the plain loop: %w", err)
		}
		plainRef, plainScalar = min(plainRef, r), min(plainScalar, s)
		if r, s, err = floor(); err != nil {
			return err
		}
		floorRef, floorScalar = min(floorRef, r), min(floorScalar, s)
	}
	plainX, floorX := plainScalar/plainRef, floorScalar/floorRef
	fmt.Fprintf(log, "plain loop: ref_js_loop %.1f ns/op, script_to_host_scalar %.1f ns/op, ×ref %.2f\n", plainRef, plainScalar, plainX)
	fmt.Fprintf(log, "floor:      ref_js_loop %.1f ns/op, script_to_host_scalar %.1f ns/op, ×ref %.2f (%.2fx the plain loop's)\n",
		floorRef, floorScalar, floorX, floorX/plainX)
	if r := floorX / plainX; r > 1.5 || r < 1/1.5 {
		return fmt.Errorf("the floor's ×ref %.2f is %.2fx the plain loop's %.2f: not within 1.5x", floorX, r, plainX)
	}
	return nil
}

// Test is a floor's TestFloorIsThePlainLoop: Compare of the floor p with the plain loops that loop makes of RefScript
// and ScalarScript, logged, failing t when the floor is not within 1.5x of them (a proof: scripts/test runs it alone).
func Test(t *testing.T, p harness.Program, loop func(tb testing.TB, script string) Loop) {
	ref, scalar := loop(t, RefScript), loop(t, ScalarScript)
	TestWith(t, func() (float64, float64, error) { return Ratio(ref, scalar, MinTime, Runs) },
		func() (float64, float64, error) { return FloorRatio(p, MinTime, Runs) })
}

// TestWith is Test of any plain loop and floor (CompareWith's).
func TestWith(t *testing.T, plainLoop, floor Measure) {
	testenv.SkipInShort(t, "times the floor against a plain loop")
	var log strings.Builder
	err := CompareWith(&log, plainLoop, floor)
	t.Log("\n" + log.String())
	if err != nil {
		t.Error(err)
	}
}

// Bench is a floor's BenchmarkPlain: the plain loops' ns/op, of ref_js_loop and of script_to_host_scalar.
func Bench(b *testing.B, loop func(tb testing.TB, script string) Loop) {
	for _, c := range []struct{ name, script string }{{"ref_js_loop", RefScript}, {"script_to_host_scalar", ScalarScript}} {
		b.Run(c.name, func(b *testing.B) {
			l := loop(b, c.script)
			b.ResetTimer()
			if err := l(uint64(b.N)); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BuiltFloor builds engine's floor for this machine, or fails (in CI) or skips t when this machine lacks what the
// engine needs, and returns how to measure it: the floor program run with FloorArgs, its output read by ParseRatio.
// It is the floor's side of TestWith for a floor that is a program of its own (a C floor, a node addon).
func BuiltFloor(t *testing.T, engine string) Measure {
	t.Helper()
	e, err := engines.Lookup(engine)
	if err != nil {
		t.Fatal(err)
	}
	if st := e.Check(engines.Local()); !st.Have {
		testenv.Missing(t, e.Title+": "+st.Detail+": "+st.Fix)
	}
	prog, err := build.BuildEngineFloor(context.Background(), build.Host(), engine, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return func() (refNs, scalarNs float64, err error) {
		out, err := Output(prog.Path, FloorArgs(MinTime, Runs)...)
		if err != nil {
			return 0, 0, err
		}
		return ParseRatio(out)
	}
}
