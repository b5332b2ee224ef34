package stats

import (
	"fmt"
	"math"
	"slices"
)

// DefaultAlpha is the significance level bench-bridge tests at unless told otherwise (benchstat's): the one alpha
// that show and gate share.
const DefaultAlpha = 0.05

// CheckAlpha returns an error unless alpha is a significance level: a finite number strictly between 0 and 1. NaN
// would make every p-value "not significant" and so switch off whatever decides on it.
func CheckAlpha(alpha float64) error {
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("%v is not a significance level: want a number strictly between 0 and 1, like %v", alpha, DefaultAlpha)
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
