package stats

import (
	"math"
	"slices"
)

// StateThresholds say when the reference's levels of a run fall into more than one state of the device. They are
// ratios of the levels' own spreads, not times, so that they hold on any CPU.
type StateThresholds struct {
	// Separation is how far apart, in units of their spread, the two sides of a split must lie to be two states: the
	// distance between the sides' medians (in logs) over the sum of their interquartile ranges. One state cut in two
	// at its middle gives about 0.8 (a normal one) or less; two states a spell apart give ten or more.
	Separation float64
	// MinSide is the least number of levels on each side of a split: fewer are outliers, not a state.
	MinSide int
	// MinSlowdown is how much slower, as a share, a state must run than a faster one to be a state of its own: a
	// device whose processes cluster a few per cent apart (where each placed its code) runs in one state.
	MinSlowdown float64
}

// DefaultStates are the thresholds a run decides its fastest state by: sides twice as far apart as their spreads,
// of at least 3 levels each, and 10% apart, as a marked process's reference (DefaultMarks) and the widest interval a
// run calls stable (DefaultStability) (docs/devstate.md).
var DefaultStates = StateThresholds{Separation: 2, MinSide: 3, MinSlowdown: 0.10}

// State is the fastest state FastestState found among a run's reference levels.
type State struct {
	// Center is the median level of the fastest state, and Bound its slowest level: a level above Bound ran in a
	// slower state. Both NaN when there were no levels.
	Center, Bound float64
	// N is how many levels are in the fastest state, of Of.
	N, Of int
	// Split is true when the levels held more than one state.
	Split bool
}

// In reports whether level ran in the fastest state.
func (s State) In(level float64) bool { return level > 0 && level <= s.Bound }

// Slower is how many times slower than the fastest state's center level ran (1.5: 50% slower).
func (s State) Slower(level float64) float64 { return level / s.Center }

// FastestState finds the fastest state of a device from the levels of its reference loop over a run (one per case
// and process: the median of the reference samples beside the case), decided from the levels alone (fastestRun). Interference only adds time, so the fastest state is the device at
// its full speed; the levels above it ran while something slowed the device (a spell of a neighbour, heat, a lower
// clock). Levels that are not positive are left out.
func FastestState(levels []float64, th StateThresholds) State {
	var kept []float64
	for _, l := range levels {
		if l > 0 && !math.IsInf(l, 0) {
			kept = append(kept, l)
		}
	}
	s := State{Center: math.NaN(), Bound: math.NaN(), Of: len(kept)}
	if len(kept) == 0 {
		return s
	}
	slices.Sort(kept)
	logs := make([]float64, len(kept))
	for i, l := range kept {
		logs[i] = math.Log(l)
	}
	s.N = fastestRun(logs, th)
	s.Split = s.N < len(kept)
	s.Center, s.Bound = sortedMedian(kept[:s.N]), kept[s.N-1]
	return s
}

// fastestRun returns how many of sorted logs, from the least, are the fastest state. It splits them in two where
// the spread within the sides is least (Otsu's rule: the split of largest variance between the sides, each side
// holding th.MinSide levels or more). When the faster side holds states of its own, its fastest is the fastest;
// else the faster side is a state of its own when it lies further from the slower side's fastest state than
// th.Separation times the sum of the two's interquartile ranges, and more than th.MinSlowdown slower. One state cut
// anywhere gives sides about as far apart
// as they are wide, whatever its shape, so it stays whole.
func fastestRun(logs []float64, th StateThresholds) int {
	k, ok := otsuSplit(logs, max(th.MinSide, 1))
	if !ok {
		return len(logs)
	}
	if n := fastestRun(logs[:k], th); n < k {
		return n
	}
	lo, hi := logs[:k], logs[k:k+fastestRun(logs[k:], th)]
	if d := median(hi) - median(lo); d > th.Separation*(iqr(lo)+iqr(hi)) && d > math.Log1p(th.MinSlowdown) {
		return k
	}
	return len(logs)
}

// otsuSplit returns the k that splits sorted xs into xs[:k] and xs[k:] with the largest variance between the two
// sides' means, each side holding at least minSide values; false when xs is too short or all equal.
func otsuSplit(xs []float64, minSide int) (int, bool) {
	n := len(xs)
	if n < 2*minSide || xs[0] == xs[n-1] {
		return 0, false
	}
	total := 0.0
	for _, x := range xs {
		total += x
	}
	best, bestK, sum := -1.0, 0, 0.0
	for k := 1; k < n; k++ {
		sum += xs[k-1]
		if k < minSide || n-k < minSide {
			continue
		}
		lo, hi := sum/float64(k), (total-sum)/float64(n-k)
		if v := float64(k) * float64(n-k) * (hi - lo) * (hi - lo); v > best {
			best, bestK = v, k
		}
	}
	return bestK, best > 0
}

// iqr is the interquartile range of sorted xs.
func iqr(xs []float64) float64 {
	return quantileSorted(xs, 0.75) - quantileSorted(xs, 0.25)
}

// quantileSorted is the q-quantile of sorted xs, interpolated between neighbours.
func quantileSorted(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}
