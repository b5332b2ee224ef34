package harness

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
)

// What the busy work adds to a case is measured in slowdownPairs pairs of runs, one with the work and one without,
// side by side so that a pair sees one state of the machine: their ratios' median, and the 4th and 13th of the 16 as
// its interval (98% for the median), inside which the share asked for counts as what the case gained. As the C
// harness's (cases/c/harness_measure.c).
const (
	slowdownPairs  = 16
	slowdownLow    = 3
	slowdownRounds = 3
)

// setup runs a case's set-up; a panic in it is the case's error.
func setup(c *Case) (l Loop, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(p)
		}
	}()
	l, err = c.Setup()
	if err != nil {
		closeLoop(l)
		return Loop{}, err
	}
	if l.Run == nil {
		closeLoop(l)
		return Loop{}, errors.New("the set-up returned no loop to run")
	}
	return l, nil
}

// closeLoop frees a loop's case, if it has a Close.
func closeLoop(l Loop) {
	if l.Close != nil {
		l.Close()
	}
}

// panicError is a panic of a case's code as its error, with where it happened (the panic stops the case, not the
// program: the error record names it, and the next case runs).
func panicError(p any) error {
	stack := debug.Stack()
	if len(stack) > 600 {
		stack = stack[:600]
	}
	return fmt.Errorf("panic: %v (%s)", p, oneLine(string(stack)))
}

// timed runs n loop units and returns their wall time (at least 1 ns) and the ops they made.
func timed(l Loop, n, unit uint64) (ns, ops uint64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(p)
		}
	}()
	t0 := now()
	err = l.Run(n)
	ns = now() - t0
	return max(ns, 1), n * unit, err
}

// nextUnits grows n toward a run of target ns, as Google Benchmark does: by the ratio still missing, times 1.4, at
// most 10x per step and at least by one.
func nextUnits(n, ns, target uint64) uint64 {
	mult := 10.0
	if ns > 0 {
		mult = min(float64(target)*1.4/float64(ns), 10)
	}
	next := float64(n) * mult
	next = max(next, float64(n)+1)
	next = min(next, maxUnits)
	return uint64(next)
}

// runCase prints one case's records from begin to end: its samples and its memory record, or its error.
func (h *harness) runCase(name string) {
	c := h.find(name)
	if c == nil {
		h.errorRecord(name, errors.New("unknown case"))
		return
	}
	h.line("begin %s", name)
	slowdownQ8 = h.o.slowdownSteps * 256 // --slowdown-steps: from set-up on, the same in every run
	defer func() { slowdownQ8 = 0 }()
	l, err := setup(c)
	if err == nil {
		err = h.measure(c, l)
		closeLoop(l)
		slowdownQ8 = 0 // the memory pass counts; its time does not matter
		if err == nil && h.o.units == 0 {
			err = h.memoryPass(c) // --ops counts instructions: nothing may run but the samples
		}
	}
	if err != nil {
		h.errorRecord(name, err)
	}
	h.line("end %s", name)
}

// measure does warm-up, calibration and samples for one case set up.
func (h *harness) measure(c *Case, l Loop) error {
	o, unit := &h.o, unitOps(c.Name)
	if o.units > 0 {
		return h.measureFixed(c, l, unit)
	}
	var n, ns, ops, spent uint64 = 1, 0, 0, 0
	var err error
	for spent < o.warmupNs {
		if ns, _, err = timed(l, n, unit); err != nil {
			return err
		}
		spent += ns
		if spent < o.warmupNs {
			n = nextUnits(n, ns, o.warmupNs-spent)
		}
	}
	for n = 1; ; n = nextUnits(n, ns, o.minTimeNs) {
		if ns, ops, err = timed(l, n, unit); err != nil {
			return err
		}
		if ns >= o.minTimeNs || n >= maxUnits {
			break
		}
	}
	if o.slowdown > 0 {
		if err := h.applySlowdown(c, l, n, unit); err != nil {
			return err
		}
	}
	h.line("calibrated %s %d", c.Name, ops)
	for range o.samples {
		if err := h.sampleBeside(c); err != nil {
			return err
		}
		if ns, ops, err = timed(l, n, unit); err != nil {
			return err
		}
		h.line("sample %s %d %d", c.Name, ops, ns)
	}
	return nil
}

// measureFixed takes samples of exactly --ops loop units, after a warm-up of one such run unless --warmup-ns is 0:
// nothing depends on the clock, so a run repeats exactly (instruction counts under callgrind).
func (h *harness) measureFixed(c *Case, l Loop, unit uint64) error {
	o := &h.o
	if o.warmupNs > 0 {
		if _, _, err := timed(l, o.units, unit); err != nil {
			return err
		}
	}
	for i := range o.samples {
		ns, ops, err := timed(l, o.units, unit)
		if err != nil {
			return err
		}
		if i == 0 {
			h.line("calibrated %s %d", c.Name, ops)
		}
		h.line("sample %s %d %d", c.Name, ops, ns)
	}
	return nil
}

// besideSetup readies the --ref case once per process, warmed up and calibrated to half the min time: it only has to
// see how fast the machine is at that moment. On failure the ref case's own run reports the error; the others run
// without ref samples.
func (h *harness) besideSetup() {
	c := h.find(h.o.ref)
	if c == nil {
		return
	}
	l, err := setup(c)
	if err != nil {
		return
	}
	unit, target := unitOps(c.Name), h.o.minTimeNs/2
	var n, ns uint64 = 1, 0
	for ; ; n = nextUnits(n, ns, target) {
		if ns, _, err = timed(l, n, unit); err != nil {
			closeLoop(l)
			return
		}
		if ns >= target || n >= maxUnits {
			break
		}
	}
	h.beside.c, h.beside.loop, h.beside.n = c, l, n
}

// sampleBeside takes one sample of the --ref case beside a sample of c and prints it as `ref C OPS NS`.
func (h *harness) sampleBeside(c *Case) error {
	b := &h.beside
	if b.c == nil || b.c == c {
		return nil
	}
	ns, ops, err := timed(b.loop, b.n, unitOps(b.c.Name))
	if err != nil {
		return fmt.Errorf("%s beside %s failed: %w", b.c.Name, c.Name, err)
	}
	h.line("ref %s %d %d", c.Name, ops, ns)
	return nil
}

// addedShare measures what the busy work as set adds to one op of the case, in runs of n units, in alternating
// order: the median share and its interval.
func addedShare(l Loop, n, unit uint64) (share, low, high float64, err error) {
	q8 := slowdownQ8
	defer func() { slowdownQ8 = q8 }()
	var ratio [slowdownPairs]float64
	for i := range slowdownPairs {
		var ns [2]uint64
		for j := range 2 {
			with := (i + j) % 2 // without first in even pairs, with first in odd ones
			slowdownQ8 = 0
			if with == 1 {
				slowdownQ8 = q8
			}
			if ns[with], _, err = timed(l, n, unit); err != nil {
				return 0, 0, 0, err
			}
		}
		ratio[i] = float64(ns[1]) / float64(ns[0])
	}
	slices.Sort(ratio[:])
	share = (ratio[slowdownPairs/2-1]+ratio[slowdownPairs/2])/2 - 1
	return share, ratio[slowdownLow] - 1, ratio[slowdownPairs-1-slowdownLow] - 1, nil
}

// applySlowdown sets the busy work of the case's crossings to --slowdown's share of the case's own cost per op and
// prints what it applied as one `slowdown CASE ADDED BASE` record (ns per op), as the C harness does: BASE is the
// least of 3 runs of n units without the work, which also count the crossings per op; the work is set from its cost
// in a tight loop of Crossing calls, then checked against the case itself and scaled (at most twice a round, three
// rounds) where the case gained significantly more or less than the share. ADDED is the tight loop's cost when the
// case agreed with it and otherwise what the case last gained. A case that makes no crossing gets none.
func (h *harness) applySlowdown(c *Case, l Loop, n, unit uint64) error {
	share := h.o.slowdown
	var base, added float64
	var totalOps uint64
	before := crossings
	for i := range 3 {
		ns, ops, err := timed(l, n, unit)
		if err != nil {
			return err
		}
		if cost := float64(ns) / float64(ops); i == 0 || cost < base {
			base = cost
		}
		totalOps += ops
	}
	perOp := float64(crossings-before) / float64(totalOps)
	if perOp > 0 {
		m := max(n/8, 1)
		tight := slowdownCalibrate(share*base/perOp) * perOp
		tightQ8 := slowdownQ8
		added = tight
		for i := range slowdownRounds {
			got, low, high, err := addedShare(l, m, unit)
			if err != nil {
				return err
			}
			agrees := low <= share && share <= high
			// a gain the machine's noise hid still carries the work: then the tight loop's cost of it
			if i > 0 || !agrees {
				switch {
				case got > 0:
					added = got * base
				case tightQ8 > 0:
					added = tight * float64(slowdownQ8) / float64(tightQ8)
				default:
					added = 0
				}
			}
			if agrees || i == slowdownRounds-1 {
				break
			}
			scale := 2.0
			if got > 0 {
				scale = share / got
			}
			scale = min(max(scale, 0.5), 2)
			slowdownQ8 = max(uint64(float64(slowdownQ8)*scale+0.5), 1)
		}
	}
	h.line("slowdown %s %.4f %.4f", c.Name, added, base)
	return nil
}
