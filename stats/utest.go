package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	mstats "github.com/aclements/go-moremath/stats"
)

// ErrTooFewSamples is returned, wrapped, by MannWhitneyU when a sample is
// empty.
var ErrTooFewSamples = errors.New("stats: Mann-Whitney U test needs at least one value in each sample")

// ErrSamplesEqual is returned, wrapped, by MannWhitneyU when every value
// in both samples is the same, so the test has nothing to rank.
var ErrSamplesEqual = errors.New("stats: all values in both samples are equal")

// ErrNaN is returned, wrapped, by MannWhitneyU when a sample contains
// NaN, which cannot be ranked.
var ErrNaN = errors.New("stats: sample contains NaN")

// MannWhitneyU returns the two-sided p-value of the Mann-Whitney U test
// of the null hypothesis that a and b come from the same distribution.
//
// It is moremath's MannWhitneyUTest with the LocationDiffers
// alternative, which benchstat uses, so the p-values are benchstat's:
// exact for samples of up to 50 values each (25 if there are ties),
// otherwise from the normal approximation with tie and continuity
// corrections. Equal U statistics for both samples give p = 1.
//
// The error wraps ErrTooFewSamples if a or b is empty, ErrSamplesEqual
// if all values are equal, or ErrNaN if a value is NaN. a and b are not
// modified.
func MannWhitneyU(a, b []float64) (p float64, err error) {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN(), fmt.Errorf("%w (got %d and %d values)", ErrTooFewSamples, len(a), len(b))
	}
	if slices.ContainsFunc(a, math.IsNaN) || slices.ContainsFunc(b, math.IsNaN) {
		return math.NaN(), ErrNaN
	}
	// MannWhitneyUTest sorts copies of its inputs.
	res, err := mstats.MannWhitneyUTest(a, b, mstats.LocationDiffers)
	switch {
	case err == nil:
		return res.P, nil
	case errors.Is(err, mstats.ErrSampleSize):
		return math.NaN(), fmt.Errorf("%w (got %d and %d values)", ErrTooFewSamples, len(a), len(b))
	case errors.Is(err, mstats.ErrSamplesEqual):
		return math.NaN(), fmt.Errorf("%w (%d and %d values of %v)", ErrSamplesEqual, len(a), len(b), a[0])
	default:
		return math.NaN(), fmt.Errorf("stats: Mann-Whitney U test: %w", err)
	}
}
