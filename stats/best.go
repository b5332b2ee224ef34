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

// BestOverBest returns the least of num over the least of den, each over processes (num[i] and den[i] come from
// process i: a case's median and the median of the ref samples measured beside it), with a prediction interval
// for another run's ratio.
//
// Why the least: on a shared machine a process runs at the machine's full speed or in a slower state that lasts
// seconds (measured here: ref_js_loop at 33 ns in some processes and 50 ns in others, with the crossings slowed more
// than the loop, 1.8x against 1.4x), and a run of a few processes catches a different mix of the two each time. The
// ratio within one process does not take that out; a median over processes moves with the mix (18% from run to
// run for the worst case of 25). Interference only adds time, so the least over processes, taken separately for the
// case and for the ref, estimates both at full speed (Chen and Revels, "Robust benchmarking in noisy environments",
// 2016); docs/gate.md has the measurements. A pair of values where either is not positive and finite is left out.
//
// The interval is the ratio times exp(± t(level, n-1) · s · sqrt(π/n)), s the standard deviation of the logs of
// the processes' own ratios num[i]/den[i]. The least over processes does not move with the mix of states as a
// median does, so no run-level term is added (SummarizeProcesses has one). Measured over 7 sets of 5 runs of 10 or 5
// processes, this interval held another run's ratio in 78% to 98% of cases (95% to 98% in the four sets of 10:00 and after);
// a bootstrap over processes, which cannot reach below the least it resamples, held it in 45% to 66%.
func BestOverBest(num, den []float64, level float64) BestRatio {
	var ns, ds, logs []float64
	for i := range min(len(num), len(den)) {
		if num[i] > 0 && den[i] > 0 && !math.IsInf(num[i], 0) && !math.IsInf(den[i], 0) {
			ns, ds = append(ns, num[i]), append(ds, den[i])
			logs = append(logs, math.Log(num[i]/den[i]))
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
