package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"time"

	"github.com/bench-bridge/bench-bridge/targets"
)

// minSpan is the least number of instructions the counted difference of one case spans: enough ops that the few
// hundred instructions that vary between runs (the program prints clock readings) and what one op does now and then
// (a garbage collection) average out, few enough that callgrind (some 50 times slower than the program) takes seconds.
const minSpan = 10_000_000

// maxUnits caps the loop units of one counted run, as the harness caps its calibration.
const maxUnits = 1_000_000

// collected is the line callgrind prints on stderr at the end: "==PID== Collected : 123456".
var collected = regexp.MustCompile(`(?m)^==\d+== Collected : (\d+)\s*$`)

// Bounds of the callgrind steps, so that a device that stops answering, or a run that never ends, fails the count
// with its name instead of hanging. A counted run of maxUnits units takes seconds to a few minutes under callgrind.
var (
	valgrindCheckBound = time.Minute
	countRunBound      = 10 * time.Minute
)

// valgrindHint says how to get valgrind where it is missing.
const valgrindHint = "--metric instructions needs valgrind on the target (Debian: apt-get install valgrind)"

// CheckValgrind reports whether the target can run valgrind, with a hint when it cannot.
func CheckValgrind(ctx context.Context, t targets.Target) error {
	var out bytes.Buffer
	cctx, cancel := context.WithTimeout(ctx, valgrindCheckBound)
	defer cancel()
	err := t.Run(cctx, "valgrind", []string{"--version"}, &out, &out)
	if overBound(ctx, cctx) {
		return fmt.Errorf("%s: valgrind --version did not finish within %s", t.Name(), valgrindCheckBound)
	}
	if err != nil {
		return fmt.Errorf("%s: cannot run valgrind (%v): %s", t.Name(), err, valgrindHint)
	}
	return nil
}

// MeasureInstructions counts each case's instructions per op under valgrind's callgrind. Every count comes from
// runs with a fixed op count (the harness's --ops, no warm-up), so nothing depends on the clock and the same binary
// gives the same counts run after run, to within 0.01%. One op's count is the difference
// between a run of one loop unit and a run of u units, over the difference of their op counts: start-up, set-up and
// the first unit's one-off costs cancel. u grows by 4 from 4 until the difference spans minSpan instructions.
// Cases that fail are left out of the map and reported in the error; the others are still counted.
func MeasureInstructions(ctx context.Context, t targets.Target, remote string, names []string, log io.Writer, extra ...string) (map[string]float64, error) {
	out := map[string]float64{}
	var failed []error
	for _, name := range names {
		v, err := caseInstructions(ctx, t, remote, name, extra)
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: instructions of %s: %w", t.Name(), name, err))
			continue
		}
		out[name] = v
		if log != nil {
			fmt.Fprintf(log, "%s: %-28s %.0f instructions/op\n", t.Name(), name, v)
		}
	}
	return out, errors.Join(failed...)
}

func caseInstructions(ctx context.Context, t targets.Target, program, name string, extra []string) (float64, error) {
	i1, ops1, err := countRun(ctx, t, program, name, 1, extra)
	if err != nil {
		return 0, err
	}
	for units := int64(4); ; units *= 4 {
		iu, opsu, err := countRun(ctx, t, program, name, units, extra)
		if err != nil {
			return 0, err
		}
		if iu-i1 < minSpan && units < maxUnits {
			continue
		}
		if opsu <= ops1 || iu <= i1 {
			return 0, fmt.Errorf("runs of %d and %d ops counted %d and %d instructions: no cost per op to take", ops1, opsu, i1, iu)
		}
		return roundSignificant(float64(iu-i1)/float64(opsu-ops1), 6), nil
	}
}

// roundSignificant rounds v to n significant digits: the counts repeat to a few instructions in millions, and the
// digits below that are noise.
func roundSignificant(v float64, n int) float64 {
	if v == 0 {
		return 0
	}
	scale := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*scale) / scale
}

// countRun runs one sample of units loop units under callgrind and returns the program's total instruction count and
// the ops the sample made.
func countRun(ctx context.Context, t targets.Target, program, name string, units int64, extra []string) (instr, ops int64, err error) {
	var stdout, stderr bytes.Buffer
	args := []string{"--tool=callgrind", "--callgrind-out-file=/dev/null", program,
		"run", "--ops", strconv.FormatInt(units, 10), "--samples", "1", "--warmup-ns", "0"}
	args = append(append(args, extra...), name)
	rctx, cancel := context.WithTimeout(ctx, countRunBound)
	defer cancel()
	runErr := t.Run(rctx, "valgrind", args, &stdout, &stderr)
	if overBound(ctx, rctx) {
		return 0, 0, fmt.Errorf("callgrind run of %s with %d units did not finish within %s", name, units, countRunBound)
	}
	var exit *targets.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return 0, 0, runErr
	}
	for i, line := range bytes.Split(bytes.TrimSpace(stdout.Bytes()), []byte("\n")) {
		r, perr := parseLine(string(line))
		switch {
		case perr != nil:
			return 0, 0, fmt.Errorf("bench program output under callgrind, line %d: %v", i+1, perr)
		case r.kind == "error":
			return 0, 0, errors.New(r.text)
		case r.kind == "sample" && r.name == name:
			ops = r.a
		}
	}
	m := collected.FindSubmatch(stderr.Bytes())
	if runErr != nil || m == nil || ops == 0 {
		tail := stderr.Bytes()[max(0, stderr.Len()-1000):]
		if runErr == nil {
			runErr = errors.New("no sample and instruction count")
		}
		return 0, 0, fmt.Errorf("valgrind %s: %v\n%s", name, runErr, bytes.TrimSpace(tail))
	}
	instr, err = strconv.ParseInt(string(m[1]), 10, 64)
	return instr, ops, err
}

// overBound reports whether bounded, made from ctx, ended by its own deadline rather than by ctx.
func overBound(ctx, bounded context.Context) bool {
	return ctx.Err() == nil && errors.Is(bounded.Err(), context.DeadlineExceeded)
}
