package harness

import (
	"slices"
	"time"
)

// epoch is the start of the program's monotonic clock.
var epoch = time.Now()

// now reads the monotonic clock, in ns since epoch.
func now() uint64 {
	return uint64(time.Since(epoch))
}

// Now reads the monotonic clock the harness times with, in ns.
func Now() uint64 {
	return now()
}

// timerOverhead is the median cost of one back-to-back clock read pair.
func timerOverhead() uint64 {
	const pairs = 101
	var d [pairs]uint64
	for i := range d {
		t0 := now()
		t1 := now()
		d[i] = t1 - t0
	}
	slices.Sort(d[:])
	return d[pairs/2]
}

// ==== The slowdown hook: the gate's A/B proof in one binary ====

var (
	// crossings counts every Crossing.
	crossings uint64
	// slowdownQ8 is the busy work per crossing, in 1/256 steps; 0 for none.
	slowdownQ8 uint64
	// extraAlloc is 1 when the environment sets BB_EXTRA_ALLOC=1: every crossing then makes one host allocation of
	// 16 bytes (the allocation gate's A/B proof).
	extraAlloc uint64
	// slowdownAcc is the fraction of a step carried to the next crossing, in 1/256.
	slowdownAcc uint64
	// spinChain is one xorshift chain through every call: no two calls overlap.
	spinChain uint64 = 88172645463325252
	// Sink receives results that must not be optimised away, as the C harness's bb_sink.
	Sink float64
	// allocSink keeps BB_EXTRA_ALLOC's allocations on the heap.
	allocSink []byte
)

// Crossing is called once per crossing of the boundary: by the host-side work of every script -> host call (Add,
// Upper, ObjHost and the others call it) and, in a program's own loops, before every host -> script call (JSCases'
// loops call it). It counts the crossings and, with `run --slowdown SHARE`, adds busy work the harness calibrated to
// be SHARE of the case's own cost per op (docs/protocol.md). Without the flag it costs an increment and one
// predictable branch, in both the A and the B process of the same binary.
func Crossing() {
	crossings++
	if slowdownQ8|extraAlloc != 0 {
		slowdown()
	}
}

// fenceSteps: only chains of this many steps or more are fenced (cases/c/harness_timing.c says why).
const fenceSteps = 16

// spin runs steps steps of one dependent xorshift chain, whose state carries from call to call.
func spin(steps uint64) {
	a := spinChain
	for range steps {
		a ^= a << 13
		a ^= a >> 7
		a ^= a << 17
	}
	spinChain = a
	if steps >= fenceSteps {
		fence()
	}
}

// slowdown adds the calibrated busy work of one crossing, and the extra allocation when asked for.
func slowdown() {
	if extraAlloc != 0 {
		allocSink = make([]byte, 16) // on the heap: a package variable keeps it
		allocSink[0]++
	}
	slowdownAcc += slowdownQ8
	spin(slowdownAcc >> 8)
	slowdownAcc &= 255
}

// crossingCost is what one Crossing costs in ns at the current slowdownQ8: the least of 5 timed loops of at least
// 1 ms each (whatever else runs on the machine only adds time).
func crossingCost() float64 {
	calls := uint64(1)
	for {
		t0 := now()
		for range calls {
			Crossing()
		}
		if now()-t0 >= 1_000_000 || calls >= 1<<40 {
			break
		}
		calls *= 4
	}
	best := 0.0
	for r := range 5 {
		t0 := now()
		for range calls {
			Crossing()
		}
		if d := float64(now()-t0) / float64(calls); r == 0 || d < best {
			best = d
		}
	}
	return best
}

// slowdownCalibrate sets slowdownQ8 so that one crossing's busy work costs target ns on this machine, and returns
// what it measured it to cost: three rounds of scaling the steps by the ratio still missing, then one measurement.
func slowdownCalibrate(target float64) float64 {
	slowdownQ8 = 0
	if !(target > 0) {
		return 0
	}
	idle := crossingCost()
	q8 := 256.0
	for range 3 {
		slowdownQ8 = max(uint64(q8+0.5), 1)
		added := crossingCost() - idle
		if !(added > 0) {
			added = 0.01
		}
		q8 = min(float64(slowdownQ8)*target/added, 256*1e7)
	}
	slowdownQ8 = max(uint64(q8+0.5), 1)
	return max(crossingCost()-idle, 0)
}
