package stats

import "math"

// A sequential paired test looks at the pairs as they come and stops as soon as the answer is clear (Pinpoint runs as
// many repetitions as significance needs). Looking again and again at a test made for one look would find a
// difference that is not there far more often than its alpha says; here the k-th look tests at SequentialAlpha(alpha,
// k) = alpha / (k (k+1)), whose sum over every look there can ever be is alpha: the chance that any look's interval
// misses the true change is at most alpha (a union bound), so the error rates hold at every look, however many the
// time budget allows, and whatever the noise (the sign test's interval needs no model of it).

// SequentialAlpha is the alpha the k-th look (from 1) of a sequential test spends.
func SequentialAlpha(alpha float64, k int) float64 {
	if k < 1 {
		return 0
	}
	return alpha / float64(k*(k+1))
}

// SequentialFirstLook is how many pairs the first look needs: a sign test of fewer cannot reach the first look's
// alpha (2 * 2^-n < alpha/2 from n = 7 at alpha 0.05); looks then come every time the pairs have grown by a half.
const SequentialFirstLook = 8

// SequentialLook says whether the n-th pair is a look, and which (from 1): 8, 12, 18, 27, 41, 62, 93, ... pairs.
func SequentialLook(n int) (k int, ok bool) {
	at := SequentialFirstLook
	for k = 1; at <= n; k++ {
		if at == n {
			return k, true
		}
		at = int(math.Ceil(float64(at) * 1.5))
	}
	return 0, false
}

// Clarity is what one look of a sequential test says about a change.
type Clarity int

// Clarities.
const (
	Unclear    Clarity = iota // go on measuring
	ClearSame                 // the interval excludes a change of the minimum effect either way: no change that counts
	ClearWorse                // significant, and beyond the paired share of the minimum effect (PairedThresholds)
	ClearBetter
)

func (c Clarity) String() string {
	return [...]string{"unclear", "same", "worse", "better"}[c]
}

// SequentialPaired is the k-th look at the pairs (a[i], b[i]): the paired test at the look's alpha, and whether its
// answer is clear. Worse and Better are what the gate's paired rule says at that alpha (PairedThresholds); Same needs
// the whole interval within the minimum effect on both sides, so that a change of that size is excluded.
func SequentialPaired(a, b []float64, k int, alpha, minEffect float64) (Clarity, Paired, error) {
	ak := SequentialAlpha(alpha, k)
	p, err := PairedRatio(a, b, 1-ak)
	if err != nil {
		return Unclear, p, err
	}
	switch PairedThresholds(ak, minEffect).Tested(p.Ratio-1, p.P) {
	case Worse:
		return ClearWorse, p, nil
	case Better:
		return ClearBetter, p, nil
	}
	if p.High-1 < minEffect && 1-p.Low < minEffect {
		return ClearSame, p, nil
	}
	return Unclear, p, nil
}
