package stats

import (
	"math"
)

// A test too small for its alpha cannot find any change, however large: with 3 processes a side the U test's least
// two-sided p is 0.100, so at alpha 0.05 a case 31 times slower is "not significant". Each test here knows the least
// p its sample sizes allow, and how many would reach an alpha, so that a comparison too small to judge says so
// instead of calling the case the same (docs/gate.md, the table of least processes).

// LeastUP is the least two-sided p-value a Mann-Whitney U test of samples of n1 and n2 values can give: that of two
// fully separated samples, 2 / C(n1+n2, n1), at most 1; 1 when a sample is empty.
func LeastUP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	lg := func(n int) float64 { v, _ := math.Lgamma(float64(n + 1)); return v }
	logC := lg(n1+n2) - lg(n1) - lg(n2)
	return min(1, 2*math.Exp(-logC))
}

// UTestNeeds is the least n such that two samples of n values each can reach alpha by the U test (LeastUP(n, n) <=
// alpha); 0 for an alpha that CheckAlpha refuses.
func UTestNeeds(alpha float64) int {
	return needs(alpha, func(n int) float64 { return LeastUP(n, n) })
}

// SignTestNeeds is the least number of pairs whose sign test can reach alpha (LeastSignP(n) <= alpha); 0 for an
// alpha that CheckAlpha refuses.
func SignTestNeeds(alpha float64) int {
	return needs(alpha, LeastSignP)
}

// SequentialNeeds is the fewest rounds after which compare's sequential rule (SequentialPaired) can reach a verdict
// when its rounds end there (--runs caps them): the sign test over that many pairs reaching the alpha of the look
// the session ends with (SequentialEndLook).
func SequentialNeeds(alpha float64) int {
	return needs(alpha, func(n int) float64 { return LeastSignP(n) / SequentialAlpha(1, SequentialEndLook(n)) })
}

// needs is the least n whose least p-value reaches alpha (0 for an alpha that CheckAlpha refuses); least falls as n
// grows.
func needs(alpha float64, least func(n int) float64) int {
	if CheckAlpha(alpha) != nil {
		return 0
	}
	n := 1
	for !Significant(least(n), alpha) {
		n++
	}
	return n
}

// SequentialEndLook is the look a sequential session that ends after n rounds judges at: the looks taken up to n,
// and one more of its own when n is not a look.
func SequentialEndLook(n int) int {
	k := 0
	for at := SequentialFirstLook; at <= n; at = int(math.Ceil(float64(at) * 1.5)) {
		k++
	}
	if _, ok := SequentialLook(n); !ok {
		k++
	}
	return k
}

// LeastPermutationP is the least p-value a permutation test with this many shuffles can give: 1 / (shuffles + 1),
// the observed split counted among them.
func LeastPermutationP(shuffles int) float64 {
	return 1 / float64(max(shuffles, 0)+1)
}

// ChangePointNeeds is the fewest nights in which th can find a change: MinSegment on each side, and a permutation
// test that can reach its alpha at all (0 when it cannot, whatever the nights).
func ChangePointNeeds(th ChangePointThresholds) int {
	if !Significant(LeastPermutationP(th.Permutations), th.Alpha) {
		return 0
	}
	return 2 * th.MinSegment
}
