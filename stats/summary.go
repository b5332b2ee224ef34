package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/combin"
	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes one sample by its median and a confidence interval
// for the population median.
type Summary struct {
	// Median is the sample median: the middle value for an odd
	// number of samples, the mean of the two middle values for an
	// even number.
	Median float64

	// Low and High bound the confidence interval of the median.
	// Both are values of the sample (order statistics), so
	// Low <= Median <= High.
	Low, High float64

	// Confidence is the actual confidence level of [Low, High]: the
	// exact probability, under the Binomial(N, 1/2) model of how many
	// samples fall below the population median, that the interval
	// covers it. It is at least the requested level unless Warnings
	// says the sample was too small, with one caveat: above 30 samples
	// the order statistics are picked, as benchstat picks them, with a
	// normal approximation, which in rare cases leaves the exact level
	// a hair short (0.49995 for 177 samples at level 0.5; no case at
	// levels 0.8 to 0.999 up to 3000 samples).
	Confidence float64

	// N is the number of samples.
	N int

	// Warnings lists problems that did not stop the computation but
	// should be shown with the result, e.g. "need >= 6 samples for
	// confidence interval at level 0.95".
	Warnings []string
}

// Summarize returns the median of samples and a distribution-free
// confidence interval for it at the requested confidence level (e.g.
// 0.95), picked from the order statistics as benchstat does.
//
// If the sample is too small for the requested level (fewer than 6
// samples at 0.95), the interval is the widest one the sample has,
// [min, max], Confidence is that interval's actual (lower) level, and a
// warning says how many samples the level needs.
//
// Summarize does not modify samples. It returns no error: for an empty
// sample or one containing NaN, every float field is NaN and a warning
// says why; for a confidence level outside (0, 1], Median is set, the
// interval fields are NaN, and a warning says why.
func Summarize(samples []float64, confidence float64) Summary {
	nan := math.NaN()
	s := Summary{Median: nan, Low: nan, High: nan, Confidence: nan, N: len(samples)}
	if len(samples) == 0 {
		s.Warnings = append(s.Warnings, "no samples")
		return s
	}
	if slices.ContainsFunc(samples, math.IsNaN) {
		s.Warnings = append(s.Warnings, "samples contain NaN")
		return s
	}

	xs := slices.Clone(samples)
	slices.Sort(xs)
	n := len(xs)
	s.Median = sortedMedian(xs)

	if !(confidence > 0 && confidence <= 1) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("confidence level %v not in (0, 1]", confidence))
		return s
	}

	lo, hi := medianCIOrders(n, confidence)
	if lo < 1 || hi > n {
		// The interval reaches past the sample (benchstat shows ±∞
		// here); report the widest finite interval instead.
		op, need := medianCISamples(confidence)
		s.Warnings = append(s.Warnings,
			fmt.Sprintf(tooFewForInterval, op, need, confidence))
		lo, hi = max(lo, 1), min(hi, n)
	}
	s.Low, s.High = xs[lo-1], xs[hi-1]
	s.Confidence = medianCoverage(n, lo, hi)
	return s
}

// sortedMedian returns the median of the sorted, non-empty xs.
func sortedMedian(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// medianCoverage returns the probability that the order statistics
// X(lo) and X(hi) (1-based) of n samples enclose the population median.
//
// With K the number of samples below the population median,
// K ~ Binomial(n, 1/2) for any continuous distribution, and the median
// lies in [X(lo), X(hi)] exactly when lo <= K <= hi-1.
func medianCoverage(n, lo, hi int) float64 {
	b := distuv.Binomial{N: float64(n), P: 0.5}
	return b.CDF(float64(hi-1)) - b.CDF(float64(lo-1))
}

// medianCIExactLimit is the largest n for which medianCIOrders sums the
// binomial distribution exactly; above it, it uses the normal
// approximation. This is moremath's quantileCIApproxThreshold.
const medianCIExactLimit = 30

// medianCIOrders returns the 1-based order statistics lo and hi that
// bound the confidence interval of the median of n samples at the given
// confidence level, choosing the same ones as moremath's
// QuantileCI(n, 0.5, confidence).LoOrder/HiOrder (and so benchstat).
// lo may be 0 and hi may be n+1, meaning the interval is unbounded on
// that side: n is too small for the level.
func medianCIOrders(n int, confidence float64) (lo, hi int) {
	if confidence >= 1 {
		return 0, n + 1
	}
	if n <= medianCIExactLimit {
		return medianCIOrdersExact(n, confidence)
	}
	return medianCIOrdersNormal(n, confidence)
}

// medianCIOrdersExact grows a band [l, r) of values of
// K ~ Binomial(n, 1/2) out from the mode, adding the more probable
// neighbour each step (the left one on ties), until the band holds at
// least the confidence level; the interval is then [X(l), X(r)].
//
// The order of additions decides which of two equally likely bands is
// returned, so it follows moremath's steps, including the floating-point
// evaluation of each probability (see medianPMF).
func medianCIOrdersExact(n int, confidence float64) (lo, hi int) {
	// The mode is n/2; for odd n, the lower of the two modes.
	l, r := n/2, n/2+1
	accum := medianPMF(n, l)
	lp, rp := medianPMF(n, l-1), medianPMF(n, r)
	for accum < confidence && (lp > 0 || rp > 0) {
		if lp >= rp {
			accum += lp
			l--
			lp = medianPMF(n, l-1)
		} else {
			accum += rp
			r++
			rp = medianPMF(n, r)
		}
	}
	return l, r
}

// medianPMF returns P(K = k) for K ~ Binomial(n, 1/2).
//
// It is computed as C(n,k) · (1/2)^k · (1/2)^(n-k), with an exact integer
// C(n,k) for n <= 20 and exp(lgamma terms) above, in the same
// floating-point steps as moremath's BinomialDist.PMF. The two tails are
// equal in exact arithmetic, but not always in floating point (for
// moremath from n = 21, and for distuv.Binomial.Prob from smaller n), and
// medianCIOrdersExact compares neighbours with >=; evaluating them the
// way moremath does is what makes the chosen order statistics match
// benchstat's on ties.
func medianPMF(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	var c float64
	switch {
	case k == 0 || k == n:
		c = 1
	case n <= 20:
		c = float64(combin.Binomial(n, k))
	default:
		c = combin.GeneralizedBinomial(float64(n), float64(k))
	}
	return c * math.Pow(0.5, float64(k)) * math.Pow(0.5, float64(n-k))
}

// medianCIOrdersNormal picks the band with the normal approximation to
// Binomial(n, 1/2) and a continuity correction, as moremath does for
// n > medianCIExactLimit: it takes the central band holding the
// confidence level, rounded out to whole values of K, and drops the
// top value if the band still holds the level without it.
func medianCIOrdersNormal(n int, confidence float64) (lo, hi int) {
	mu := float64(n) * 0.5
	norm := distuv.Normal{Mu: mu, Sigma: math.Sqrt(float64(n) * 0.5 * 0.5)}
	l1 := norm.Quantile((1 - confidence) / 2)
	r1 := 2*mu - l1
	// Value k of K stands for [k-0.5, k+0.5] of the normal.
	l := int(math.Floor(l1-0.5)) + 1
	r := int(math.Ceil(r1-0.5)) + 1
	band := func(l, r int) float64 {
		return norm.CDF(float64(r)-0.5) - norm.CDF(float64(l)-0.5)
	}
	if b := band(l, r-1); b >= confidence && b < band(l, r) {
		r--
	}
	return max(l, 0), min(r, n+1)
}

// medianCISamples returns the smallest sample size whose median interval
// at the confidence level lies within the sample, as benchmath reports
// it: op is ">=" and n that size, or op is ">" and n the largest size
// tried (50) if none up to it is enough.
func medianCISamples(confidence float64) (op string, n int) {
	const limit = 50
	for n = 2; n <= limit; n++ {
		lo, hi := medianCIOrders(n, confidence)
		if lo > 0 && hi <= n {
			return ">=", n
		}
	}
	return ">", limit
}
