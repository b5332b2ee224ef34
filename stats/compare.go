package stats

import (
	"fmt"
	"math"
	"slices"
)

// Thresholds holds the levels that Compare tests against. Start from
// DefaultThresholds, as fields may be added.
type Thresholds struct {
	// Alpha is the significance level: Compare calls a difference
	// significant when the U test's p-value is <= Alpha. Zero means
	// DefaultThresholds.Alpha.
	Alpha float64
}

// DefaultThresholds are the levels benchstat uses by default: Alpha DefaultAlpha.
var DefaultThresholds = Thresholds{Alpha: DefaultAlpha}

// Comparison is the result of Compare.
type Comparison struct {
	// Ratio is median(b) / median(a): above 1 means b's values are
	// larger. It is 1 when the medians are equal (even both 0), ±Inf
	// when only median(a) is 0, and NaN when a sample is empty or
	// contains NaN.
	Ratio float64

	// P is the two-sided Mann-Whitney U p-value (see MannWhitneyU),
	// or 1 when the test could not run, as benchstat reports it.
	P float64

	// Alpha is the significance level that was used.
	Alpha float64

	// Significant reports whether P <= Alpha, the condition under which
	// benchstat prints a delta instead of "~".
	Significant bool

	// N1 and N2 are the sizes of a and b.
	N1, N2 int

	// Err says why the test could not run (then P is 1); nil when it ran.
	Err error

	// Warnings lists problems that should be shown with the result:
	// why the test could not run, or that the samples are too small to
	// ever reach Alpha.
	Warnings []string
}

// Compare compares sample b against baseline a: the ratio of their
// medians, the Mann-Whitney U p-value, and whether the difference is
// significant at th.Alpha. If the test cannot run (a sample is empty,
// contains NaN, or all values are equal), P is 1, Significant is false,
// and the reason is in Err and Warnings. An Alpha that CheckAlpha refuses
// makes nothing significant, with a warning. If P > Alpha and the samples' sizes
// cannot reach Alpha at all (LeastUP), a warning like benchstat's says so ("need >= 4 samples to detect a
// difference at alpha level 0.05"). a and b are not modified.
func Compare(a, b []float64, th Thresholds) Comparison {
	alpha := th.Alpha
	if alpha == 0 {
		alpha = DefaultThresholds.Alpha
	}
	c := Comparison{
		Ratio: medianRatio(a, b),
		Alpha: alpha,
		N1:    len(a),
		N2:    len(b),
	}
	if err := CheckAlpha(alpha); err != nil {
		c.Warnings = append(c.Warnings, fmt.Sprintf("alpha %v: %v", alpha, err))
	}
	p, err := MannWhitneyU(a, b)
	if err != nil {
		c.P, c.Err = 1, err
		c.Warnings = append(c.Warnings, err.Error())
		return c
	}
	c.P = p
	c.Significant = Significant(p, alpha)
	if !c.Significant && CheckAlpha(alpha) == nil && !Significant(LeastUP(c.N1, c.N2), alpha) {
		c.Warnings = append(c.Warnings,
			fmt.Sprintf("need >= %d samples to detect a difference at alpha level %v", UTestNeeds(alpha), alpha))
	}
	return c
}

// medianRatio returns median(b) / median(a), or 1 if they are equal.
func medianRatio(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 ||
		slices.ContainsFunc(a, math.IsNaN) || slices.ContainsFunc(b, math.IsNaN) {
		return math.NaN()
	}
	ma, mb := median(a), median(b)
	if ma == mb {
		return 1
	}
	return mb / ma
}

// median returns the median of the non-empty xs without modifying it.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return sortedMedian(s)
}
