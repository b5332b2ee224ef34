package stats

import (
	"math"
	"slices"
)

// BestRatio is the result of BestOverBest.
type BestRatio struct {
	Ratio float64
	// Low and High bound where another run's Ratio is expected, at Confidence (0 with fewer than 2 processes: then
	// they are Ratio).
	Low, High  float64
	Confidence float64
}

// BestOverBest returns the least of least over the least of leastRef, each over processes (least[i] is the least
// sample of a case in process i, leastRef[i] the least of the ref samples measured beside them), with a prediction
// interval for another run's ratio built from ratios, the processes' own ratios (a case's median over the median of
// its ref samples).
//
// Why the least: on a shared machine a process runs at the machine's full speed or in a slower state that lasts
// from a fraction of a second to seconds (measured here: ref_js_loop at 33 ns in some processes and 50 ns in others,
// with the crossings slowed more than the loop, 1.8x against 1.4x), and a run catches a different mix of the two
// each time. The ratio within one process does not take that out; a median over processes moves with the mix (18%
// from run to run for the worst case of 25). Interference only adds time, so the least, taken separately for the
// case and for the ref, estimates both at full speed (Chen and Revels, "Robust benchmarking in noisy environments",
// 2016). The least sample rather than the least process median: a state can change within a process, and every
// sample is a chance to catch the machine at full speed. Over 9 sets of 5 runs, the spread of a case's ratio from
// run to run was lower this way for the median case in 8 sets, for the 90th percentile in 6 and for the worst case
// in 5 (docs/gate.md). A process whose values are not positive and finite is left out.
//
// The interval is the ratio times exp(± t(level, n-1) · s · sqrt(π/n)), s the standard deviation of the logs of
// ratios. The least does not move with the mix of states as a median does, so no run-level term is added
// (SummarizeProcesses has one). Measured over 11 sets of 5 runs of 5 to 20 processes, this interval held another
// run's ratio in at least 82% of cases in 10 sets (74% in a slow spell); a bootstrap over processes, which cannot
// reach below the least it resamples, held it in 30% to 66%.
func BestOverBest(least, leastRef, ratios []float64, level float64) BestRatio {
	usable := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	var ns, ds, logs []float64
	for i := range min(len(least), len(leastRef)) {
		if usable(least[i]) && usable(leastRef[i]) {
			ns, ds = append(ns, least[i]), append(ds, leastRef[i])
		}
	}
	for _, r := range ratios {
		if usable(r) {
			logs = append(logs, math.Log(r))
		}
	}
	if len(ns) == 0 {
		return BestRatio{Ratio: math.NaN(), Low: math.NaN(), High: math.NaN()}
	}
	r := BestRatio{Ratio: slices.Min(ns) / slices.Min(ds)}
	r.Low, r.High = r.Ratio, r.Ratio
	if half, ok := predictionHalfWidth(logs, level, 0); ok {
		r.Low, r.High, r.Confidence = r.Ratio*math.Exp(-half), r.Ratio*math.Exp(half), level
	}
	return r
}
