package check

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/runner"
)

// caseRun is what a run printed for one case.
type caseRun struct {
	begun, ended, failed bool
	calibrated           int64
	ops, ns              []int64
	beginAt, calAt       time.Duration
	refs                 int       // ref records (protocol 2's --ref)
	refPending           bool      // a ref record waits for its sample
	slowdown             []float64 // the slowdown record's ADDED and BASE, when it printed one
}

// runState follows a `run` output line by line, recording each departure from the protocol: its order by the
// runner's own grammar (runner.Grammar), and what a conforming program does beyond it.
type runState struct {
	c       *checker
	out     *output
	asked   []string
	cases   map[string]*caseRun
	g       runner.Grammar
	timer   bool
	version int    // the first line's protocol version; 0 when it is not one bench-bridge speaks
	ref     string // the case the run's --ref named, "" without it
	// slowdown is whether the run asked for busy work (--slowdown), which a slowdown record reports.
	slowdown bool
}

// nums parses fields as non-negative integers.
func nums(fields []string) ([]int64, error) {
	var v []int64
	for _, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a non-negative integer", f)
		}
		v = append(v, n)
	}
	return v, nil
}

// follow checks the order and shape of every line of a run of the asked cases, run with flags.
func (c *checker) follow(out *output, flags []string, asked ...string) *runState {
	s := &runState{c: c, out: out, asked: asked, cases: map[string]*caseRun{}, version: protocolVersion(firstLine(out))}
	s.g = runner.Grammar{Want: asked, Version: s.version}
	for i, f := range flags {
		switch {
		case f == "--ref" && i+1 < len(flags):
			s.ref = flags[i+1]
		case f == "--slowdown":
			s.slowdown = true
		}
	}
	for i, line := range out.lines {
		if msg := s.line(i, line); msg != "" {
			c.problem(out.cmd, i+1, line, "%s", msg)
		}
	}
	if first := firstLine(out); s.version == 0 {
		c.problem(out.cmd, 1, first, "the first line must be \"bench-bridge-protocol N\", N a version bench-bridge speaks (1 to %d)", runner.ProtocolVersion)
	}
	if !s.timer {
		c.problem(out.cmd, 0, "", "no timer_overhead_ns line before the first case")
	}
	if cur := s.g.Current(); cur != "" {
		c.problem(out.cmd, 0, "", "case %s has no end line", cur)
	}
	for _, name := range asked {
		if r := s.cases[name]; r == nil || !(r.ended || r.failed) {
			c.problem(out.cmd, 0, "", "case %s was asked for and neither ended nor reported an error", name)
		}
	}
	if out.status != 0 {
		c.problem(out.cmd, 0, "", "exit status %d, want 0: a run that printed its records exits 0 (stderr: %s)", out.status, out.stderr)
	}
	return s
}

func firstLine(out *output) string {
	if len(out.lines) == 0 {
		return ""
	}
	return out.lines[0]
}

// protocolVersion is the version of a protocol line of a version the runner speaks, else 0.
func protocolVersion(line string) int {
	v, ok := strings.CutPrefix(line, "bench-bridge-protocol ")
	n, err := strconv.Atoi(v)
	if !ok || err != nil || n < 1 || n > runner.ProtocolVersion || strconv.Itoa(n) != v {
		return 0
	}
	return n
}

// line applies one line; it returns what is wrong with it, or "".
func (s *runState) line(i int, line string) string {
	f := strings.Fields(line)
	if i == 0 {
		return "" // the first line is checked on its own
	}
	// The fields and numbers by the runner's own parser, the order by its own grammar: a program check passes is
	// one the runner reads.
	if err := runner.CheckLine(line); err != nil {
		if !runner.IsRecord(f[0]) {
			return "not a record of the protocol (diagnostics go to stderr)"
		}
		return err.Error()
	}
	name := ""
	if runner.NamesCase(f[0]) {
		name = f[1]
	}
	if (f[0] == "meta" || f[0] == "timer_overhead_ns") && len(s.cases) > 0 {
		return "header records (meta, timer_overhead_ns) come before the first case"
	}
	if err := s.g.Next(f[0], name); err != nil {
		return err.Error()
	}
	r := s.cases[name]
	switch f[0] {
	case "timer_overhead_ns":
		s.timer = true
	case "begin":
		s.cases[name] = &caseRun{begun: true, beginAt: s.out.at[i]}
	case "error":
		if r == nil {
			r = &caseRun{}
			s.cases[name] = r
		}
		r.failed = true
	case "calibrated", "sample":
		return s.sample(r, f[0], f[2:], s.out.at[i], name)
	case "ref":
		switch {
		case s.ref == "" || s.ref == name:
			return "a ref record where --ref did not ask for one (" + refWhy(s.ref, name) + ")"
		case r.calibrated == 0:
			return "a ref record before the calibrated line: one comes before each sample"
		case r.refPending:
			return "two ref records without a sample between them: one comes before each sample"
		}
		r.refs++
		r.refPending = true
	case "slowdown":
		switch {
		case !s.slowdown:
			return "a slowdown record without --slowdown"
		case r.slowdown != nil || r.calibrated > 0:
			return "the slowdown record comes once, before calibrated"
		}
		r.slowdown = []float64{parseFloat(f[2]), parseFloat(f[3])}
	case "end":
		if r != nil {
			r.ended = true
		}
	}
	return ""
}

// sample applies a calibrated or sample record of the current case r: calibrated once, before the samples; samples
// of ops; with --ref, a ref record before each.
func (s *runState) sample(r *caseRun, kind string, fields []string, at time.Duration, name string) string {
	v, err := nums(fields)
	switch {
	case err != nil:
		return err.Error()
	case kind == "calibrated" && (r.calibrated > 0 || len(r.ops) > 0):
		return "calibrated comes once, before the samples"
	case kind == "calibrated":
		r.calibrated, r.calAt = v[0], at
	case r.calibrated == 0:
		return "a sample before the calibrated line"
	case v[0] == 0:
		return "a sample of 0 ops"
	case s.ref != "" && s.ref != name && !r.refPending:
		r.ops, r.ns = append(r.ops, v[0]), append(r.ns, v[1])
		return fmt.Sprintf("a sample without a ref record just before it: --ref %s asks for one before every sample", s.ref)
	default:
		r.ops, r.ns = append(r.ops, v[0]), append(r.ns, v[1])
		r.refPending = false
	}
	return ""
}

// runCase runs one case with the flags and checks its records; the case's result is nil when it did not run (a
// problem says why).
func (c *checker) runCase(ctx context.Context, name string, flags ...string) (*output, *caseRun, error) {
	out, err := c.run(ctx, append(append([]string{"run"}, flags...), name)...)
	if err != nil {
		return nil, nil, err
	}
	c.rep.Checked++
	r := c.follow(out, flags, name).cases[name]
	if r != nil && r.failed {
		c.problem(out.cmd, 0, "", "case %s reported an error: the checks of its samples need it to run", name)
		return out, nil, nil
	}
	return out, r, nil
}

// checkRun runs one case with short settings and checks the records, the flags and the flushing.
func (c *checker) checkRun(ctx context.Context, name string) error {
	o := c.opts
	out, r, err := c.runCase(ctx, name, "--samples", strconv.Itoa(o.Samples), "--min-time-ns", strconv.FormatInt(o.MinTime.Nanoseconds(), 10),
		"--warmup-ns", strconv.FormatInt(o.Warmup.Nanoseconds(), 10))
	if err != nil {
		return err
	}
	c.rep.Protocol = protocolVersion(firstLine(out))
	if r == nil {
		return nil
	}
	if len(r.ns) != o.Samples {
		c.problem(out.cmd, 0, "", "%d samples, --samples asked for %d", len(r.ns), o.Samples)
	}
	for i := range r.ops {
		if r.ops[i] != r.calibrated {
			c.problem(out.cmd, 0, "", "samples of %d ops after calibrated %d: every sample runs the calibrated op count", r.ops[i], r.calibrated)
			break
		}
	}
	// Noise can make the calibrating run slow and the samples after it several times shorter, so only a program
	// whose longest sample is a tenth of the time asked for is taken to ignore it.
	if len(r.ns) > 0 {
		if longest := slices.Max(r.ns); longest < o.MinTime.Nanoseconds()/10 {
			c.problem(out.cmd, 0, "", "the longest sample took %d ns, --min-time-ns asked for %d: calibrate until one sample lasts that long", longest, o.MinTime.Nanoseconds())
		}
	}
	c.checkFlushed(out, r)
	return nil
}

// checkFlushed tells a program that buffers its output (every line arriving at exit) from one that flushes each line,
// and checks that the warm-up lasted --warmup-ns: the time from begin to calibrated.
func (c *checker) checkFlushed(out *output, r *caseRun) {
	first, last := out.at[0], out.at[len(out.at)-1]
	// Buffered output comes at exit, after the warm-up's time; a program that skips the warm-up prints at once.
	if last-first < 5*time.Millisecond && first >= c.opts.Warmup/2 {
		c.problem(out.cmd, 0, "", "every line arrived at once, at exit: flush stdout after each line, so that a program that dies loses nothing it measured")
		return
	}
	if gap := r.calAt - r.beginAt; gap < c.opts.Warmup*8/10 {
		c.problem(out.cmd, 0, "", "begin to calibrated took %s, --warmup-ns asked for %s of warm-up", gap.Round(time.Millisecond), c.opts.Warmup)
	}
}

// checkOps runs the case with --ops and checks that every sample ran exactly that many units.
func (c *checker) checkOps(ctx context.Context, name string) error {
	const units, samples = 7, 2
	out, r, err := c.runCase(ctx, name, "--ops", strconv.Itoa(units), "--samples", strconv.Itoa(samples), "--warmup-ns", "0")
	if err != nil || r == nil {
		return err
	}
	want := units * unitOps(name)
	if len(r.ops) != samples {
		c.problem(out.cmd, 0, "", "%d samples, --samples asked for %d", len(r.ops), samples)
	}
	if r.calibrated != want || slices.ContainsFunc(r.ops, func(v int64) bool { return v != want }) {
		c.problem(out.cmd, 0, "", "calibrated %d and samples of %v ops; --ops %d means %d ops in every sample, no calibration", r.calibrated, r.ops, units, want)
	}
	return nil
}

// checkErrors checks the error record of an unknown case and the exit status of a bad flag.
func (c *checker) checkErrors(ctx context.Context, name string) error {
	const unknown = "no_such_case"
	out, err := c.run(ctx, "run", "--samples", "1", "--min-time-ns", "1000000", "--warmup-ns", "0", unknown)
	if err != nil {
		return err
	}
	c.rep.Checked++
	s := c.follow(out, nil, unknown)
	if r := s.cases[unknown]; r == nil || !r.failed {
		c.problem(out.cmd, 0, "", "no \"error %s MESSAGE\" line for a case it does not have", unknown)
	}
	return c.wantUsageError(ctx, "an unknown flag", "run", "--no-such-flag", name)
}

// wantUsageError runs the program with arguments it must refuse, and checks that it exits 2.
func (c *checker) wantUsageError(ctx context.Context, what string, args ...string) error {
	out, err := c.run(ctx, args...)
	if err != nil {
		return err
	}
	c.rep.Checked++
	if out.status != 2 {
		c.problem(out.cmd, 0, "", "exit status %d for %s, want 2 (with a message on stderr)", out.status, what)
	}
	return nil
}

// checkLoop runs loop mode for a short while and checks its one record, and the exit status for an unknown case.
func (c *checker) checkLoop(ctx context.Context, name string) error {
	secs := strconv.FormatFloat(c.opts.Loop.Seconds(), 'f', -1, 64)
	out, err := c.run(ctx, "loop", name, secs)
	if err != nil {
		return err
	}
	c.rep.Checked++
	if out.status != 0 {
		c.problem(out.cmd, 0, "", "exit status %d, want 0 (stderr: %s)", out.status, out.stderr)
	}
	if len(out.lines) != 1 {
		c.problem(out.cmd, 0, "", "%d lines, want one: \"loop %s OPS NS\"", len(out.lines), name)
	}
	for i, line := range out.lines {
		f := strings.Split(line, " ")
		if len(f) != 4 || f[0] != "loop" || f[1] != name {
			c.problem(out.cmd, i+1, line, "want \"loop %s OPS NS\"", name)
			continue
		}
		v, err := nums(f[2:])
		if err != nil {
			c.problem(out.cmd, i+1, line, "%v", err)
		} else if v[1] < c.opts.Loop.Nanoseconds()*9/10 {
			c.problem(out.cmd, i+1, line, "ran %d ns, loop asked for %s seconds", v[1], secs)
		} else if out.at[i] < c.opts.Loop*9/10 {
			c.problem(out.cmd, i+1, line, "the line came %s after the start, loop asked for %s seconds", out.at[i].Round(time.Millisecond), secs)
		}
	}
	return c.wantUsageError(ctx, "an unknown case", "loop", "no_such_case", secs)
}

// refWhy says why a ref record was not asked for: no --ref, or the ref case's own samples.
func refWhy(ref, name string) string {
	if ref == "" {
		return "the run has no --ref"
	}
	return "the --ref case's own samples have none"
}

// parseFloat reads a decimal that runner.CheckLine has already accepted.
func parseFloat(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}
