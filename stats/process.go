package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ProcessSummary describes a run by its processes' values (one median or ratio per process): the median of them,
// and the interval in which another run's median of as many processes is expected to fall.
type ProcessSummary struct {
	Median    float64
	Low, High float64
	// Confidence is the level of [Low, High]; 0 when there were too few processes for an interval (then Low and
	// High are the median).
	Confidence float64
	N          int
}

// runLevelVariance is the variance of a run's own level, as a share of the variance between its processes: how far a
// whole run moves because the mix of machine states its processes caught differs from another run's. Measured on a
// shared 2-core machine over 22 sets of 5 runs (docs/gate.md): the run medians varied by 0.06 to 4 times the
// process variance, where independent processes would give π/(2n); the part beyond that had a median of 0.5 (from
// none to 3.9).
const runLevelVariance = 0.5

// SummarizeProcesses returns the median of the per-process values and a prediction interval at the given level for
// the median of another run of len(values) processes, in logs (times are positive and their noise multiplies):
//
//	median · exp(± t(level, n-1) · s · sqrt(2 · runLevelVariance + π/n))
//
// where s is the standard deviation of the logs of the values and π/(2n) the variance of a median of n normal
// values over that of one value. A difference of two runs carries each run's level and each run's median noise,
// hence the 2 (twice runLevelVariance and twice π/(2n)). Without the run level the interval held another run's
// median in 36% to 94% of the measured comparisons (27% with an interval over samples), because processes close in
// time share the machine's state; with it, in at least 80% in 10 sets of 11 (docs/gate.md). With fewer than 2
// values, or a value that is not positive, there is no interval.
func SummarizeProcesses(values []float64, level float64) ProcessSummary {
	s := ProcessSummary{Median: math.NaN(), Low: math.NaN(), High: math.NaN(), N: len(values)}
	if len(values) == 0 || slices.ContainsFunc(values, math.IsNaN) {
		return s
	}
	s.Median = median(values)
	s.Low, s.High = s.Median, s.Median
	if slices.ContainsFunc(values, func(v float64) bool { return !(v > 0) || math.IsInf(v, 0) }) {
		return s
	}
	logs := make([]float64, len(values))
	for i, v := range values {
		logs[i] = math.Log(v)
	}
	half, ok := predictionHalfWidth(logs, level, 2*runLevelVariance)
	if !ok {
		return s
	}
	s.Low, s.High, s.Confidence = s.Median*math.Exp(-half), s.Median*math.Exp(half), level
	return s
}

// predictionHalfWidth is t(level, n-1) · s · sqrt(runLevel + π/n), s the standard deviation of values (see
// SummarizeProcesses); false with fewer than 2 values or a level outside (0, 1).
func predictionHalfWidth(values []float64, level, runLevel float64) (float64, bool) {
	n := float64(len(values))
	if len(values) < 2 || !(level > 0 && level < 1) {
		return 0, false
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-level)/2)
	return t * stat.StdDev(values, nil) * math.Sqrt(runLevel+math.Pi/n), true
}
