package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// DefaultAlpha is the significance level bench-bridge tests at unless told otherwise (benchstat's): the one alpha
// that show and gate share.
const DefaultAlpha = 0.05

// CheckAlpha returns an error (without the value: the caller names it and where it came from) unless alpha is a significance level: a finite number strictly between 0 and 1. NaN
// would make every p-value "not significant" and so switch off whatever decides on it.
func CheckAlpha(alpha float64) error {
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("not a significance level: want a number strictly between 0 and 1, like %v", DefaultAlpha)
	}
	return nil
}

// Significant reports whether p-value p is significant at level alpha: p <= alpha, as benchstat decides. It is the
// only place that decides it; an alpha that CheckAlpha refuses makes nothing significant.
func Significant(p, alpha float64) bool {
	return CheckAlpha(alpha) == nil && p <= alpha
}

// Median returns the median of xs (the mean of the two middle values for an even count) without modifying xs, or
// NaN when xs is empty or holds NaN.
func Median(xs []float64) float64 {
	if len(xs) == 0 || slices.ContainsFunc(xs, math.IsNaN) {
		return math.NaN()
	}
	return median(xs)
}

// CheckEffect returns an error unless v is a minimum effect: a relative change (0.10 for 10%) that is finite and at
// least 0. NaN or +Inf would make no change large enough, and so pass everything.
func CheckEffect(v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return errors.New("not a relative change: want a finite number of at least 0, like 0.10 for 10%")
	}
	return nil
}

// tooFewForInterval is Summarize's warning when the sample is too small for the requested level.
const tooFewForInterval = "need %s %d samples for confidence interval at level %v"

// IsTooFewForInterval reports whether warning w is Summarize's "too few samples for the interval", as artifacts of
// earlier versions record it: their reader drops it, and the analysis says one line of its own from the intervals.
func IsTooFewForInterval(w string) bool {
	return strings.Contains(w, "samples for confidence interval at level")
}
