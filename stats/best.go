package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// BestRatio is the result of BestOverBest.
type BestRatio struct {
	Ratio float64
	// Low and High bound Ratio's bootstrap interval over processes at Confidence (0 with fewer than 2 processes:
	// then they are Ratio). The interval always holds Ratio.
	Low, High  float64
	Confidence float64
}

// bootstrapResamples is how many resamples of the processes BestOverBest's interval draws: enough for the 2.5% and
// 97.5% points to be stable to a few tenths of a per cent, and quick (26 cases, 10 processes: about a millisecond).
const bootstrapResamples = 2000

// BestOverBest returns the least of num over the least of den, each over processes (num[i] and den[i] come from
// process i: a case's median and the median of the ref samples measured beside it), with a percentile bootstrap
// interval that resamples whole processes.
//
// Why the least: on a shared machine a process runs at the machine's full speed or in a slower state that lasts
// seconds (measured here: ref_js_loop at 33 ns in some processes and 50 ns in others, with the crossings slowed more
// than the loop, 1.8x against 1.4x), and a run of a few processes catches a different mix of the two each time. The
// ratio within one process does not take that out; a median over processes moves with the mix (18% from run to
// run for the worst case of 25). Interference only adds time, so the least over processes, taken separately for the
// case and for the ref, estimates both at full speed (Chen and Revels, "Robust benchmarking in noisy environments",
// 2016); docs/gate.md has the measurements. A pair of values where either is not positive and finite is left out.
func BestOverBest(num, den []float64, level float64) BestRatio {
	var ns, ds []float64
	for i := range min(len(num), len(den)) {
		if num[i] > 0 && den[i] > 0 && !math.IsInf(num[i], 0) && !math.IsInf(den[i], 0) {
			ns, ds = append(ns, num[i]), append(ds, den[i])
		}
	}
	if len(ns) == 0 {
		return BestRatio{Ratio: math.NaN(), Low: math.NaN(), High: math.NaN()}
	}
	r := BestRatio{Ratio: slices.Min(ns) / slices.Min(ds)}
	r.Low, r.High = r.Ratio, r.Ratio
	if len(ns) < 2 || !(level > 0 && level < 1) {
		return r
	}
	// A fixed seed: the same processes give the same interval, in the artifact and when a reader recomputes it.
	rng := rand.New(rand.NewPCG(uint64(len(ns)), 0x5eed))
	boot := make([]float64, bootstrapResamples)
	for b := range boot {
		bn, bd := math.Inf(1), math.Inf(1)
		for range ns {
			j := rng.IntN(len(ns))
			bn, bd = min(bn, ns[j]), min(bd, ds[j])
		}
		boot[b] = bn / bd
	}
	slices.Sort(boot)
	at := func(q float64) float64 { return boot[min(int(q*float64(len(boot))), len(boot)-1)] }
	r.Low, r.High = min(at((1-level)/2), r.Ratio), max(at(1-(1-level)/2), r.Ratio)
	r.Confidence = level
	return r
}
