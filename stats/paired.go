package stats

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Paired is the result of PairedRatio.
type Paired struct {
	// Ratio is the median of b[i] / a[i]: above 1 means b's values are larger.
	Ratio float64
	// Low and High bound Ratio's distribution-free confidence interval, at Level or just above it.
	Low, High float64
	Level     float64
	// P is the two-sided p-value of the sign test that b[i] / a[i] is as often above 1 as below it.
	P float64
	N int
}

// PairedRatio compares b against a pair by pair (a[i] and b[i] measured side by side, as compare's adjacent
// processes are): the median of the ratios b[i] / a[i], a sign test and the order-statistic interval of that median.
// A pair takes out what its two processes share (the machine's speed at that moment) and leaves the change. Most
// pairs then agree to a few per cent, but a pair that straddles a change of the machine's state differs far more; a
// mean or a t test is pulled by those few pairs, and the median and the sign test are not (docs/gate.md). It needs
// at least 2 pairs of positive values; level is the confidence of the interval (Level).
func PairedRatio(a, b []float64, level float64) (Paired, error) {
	if len(a) != len(b) {
		return Paired{}, errors.New("paired test: the samples differ in length")
	}
	if len(a) < 2 {
		return Paired{}, errors.New("paired test: need at least 2 pairs")
	}
	if !(level > 0 && level < 1) {
		return Paired{}, errors.New("paired test: level not in (0, 1)")
	}
	r := make([]float64, len(a))
	for i := range a {
		if !(a[i] > 0 && b[i] > 0) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return Paired{}, errors.New("paired test: values must be positive and finite")
		}
		r[i] = b[i] / a[i]
	}
	slices.Sort(r)
	p := Paired{Ratio: median(r), Level: level, N: len(r), P: signTest(r)}
	p.Low, p.High = medianInterval(r, level)
	return p, nil
}

// signTest returns the two-sided p-value of the sign test on sorted ratios: under no change, a ratio is as likely
// above 1 as below; ratios of exactly 1 carry no sign and are left out.
func signTest(r []float64) float64 {
	var above, below int
	for _, x := range r {
		switch {
		case x > 1:
			above++
		case x < 1:
			below++
		}
	}
	n := above + below
	if n == 0 {
		return 1
	}
	bin := distuv.Binomial{N: float64(n), P: 0.5}
	return min(1, 2*bin.CDF(float64(min(above, below))))
}

// medianInterval returns the distribution-free interval of the median of sorted values: the k-th smallest and the
// k-th largest value, k the largest rank whose two tails together hold at most 1-level of Binomial(n, 1/2). With too
// few values for that level it is the whole range.
func medianInterval(sorted []float64, level float64) (lo, hi float64) {
	n := len(sorted)
	bin := distuv.Binomial{N: float64(n), P: 0.5}
	k := 0 // values below the k-th smallest are outside the interval
	for k+1 <= n/2 && 2*bin.CDF(float64(k)) <= 1-level {
		k++
	}
	return sorted[max(k-1, 0)], sorted[n-max(k, 1)]
}

// LeastSignP is the smallest p-value a sign test over n pairs can give (every pair on one side): with fewer than 6
// pairs it is above 0.05, and no change can be significant.
func LeastSignP(n int) float64 {
	return min(1, math.Pow(2, float64(1-n)))
}

// Direction is which way a change goes once ChangeThresholds decide that it counts.
type Direction int

// Directions.
const (
	Unchanged Direction = iota // no change that counts
	Worse                      // a larger value: more time, instructions or allocations
	Better                     // a smaller value
)

// ChangeThresholds decide whether a measured change counts.
type ChangeThresholds struct {
	// Alpha is the significance level a tested change must reach (Significant).
	Alpha float64
	// Margin is how far from no change a change must be, either way: relative (0.10 for 10%), or absolute for counts
	// compared by their difference.
	Margin float64
}

// PairedEffectShare is the share of the minimum effect beyond which a paired change counts: half, the midpoint
// between no change and the smallest change that must be caught, so that a change of the minimum effect is caught
// even when it measures a little low, and no change is not (docs/gate.md).
const PairedEffectShare = 0.5

// UnpairedThresholds are the thresholds of a test between two sessions: significant at alpha, and beyond the minimum
// effect itself.
func UnpairedThresholds(alpha, minEffect float64) ChangeThresholds {
	return ChangeThresholds{Alpha: alpha, Margin: minEffect}
}

// PairedThresholds are the thresholds of a paired test (PairedRatio): significant at alpha, and beyond
// PairedEffectShare of the minimum effect.
func PairedThresholds(alpha, minEffect float64) ChangeThresholds {
	return ChangeThresholds{Alpha: alpha, Margin: PairedEffectShare * minEffect}
}

// Tested says which way a tested change goes: Worse or Better when its p-value is significant at th.Alpha and the
// change is beyond th.Margin on that side, else Unchanged.
func (th ChangeThresholds) Tested(change, p float64) Direction {
	if !Significant(p, th.Alpha) {
		return Unchanged
	}
	return th.Beyond(change)
}

// Beyond says which way a change goes by its size alone: Worse or Better when it is beyond th.Margin on that side.
// It is the whole rule for counts measured without noise (instructions and allocations, the same for the same
// binary), and the rest of it for a change whose test already passed.
func (th ChangeThresholds) Beyond(change float64) Direction {
	switch {
	case change > th.Margin:
		return Worse
	case change < -th.Margin:
		return Better
	}
	return Unchanged
}
