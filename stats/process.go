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

// SummarizeProcesses returns the median of the per-process values and a prediction interval at the given level for
// the median of another run of len(values) processes: median ± t(level, n-1) · s · sqrt(2 · π/2 / n), where s is
// the processes' standard deviation, π/2 the variance of a median of normal values over that of their mean, and
// the 2 the variance of a difference of two runs' medians. It describes what another run will measure (the
// question a reader of one run asks); a confidence interval of the median alone (without the 2) holds another
// run's median only about 83% of the time even when every assumption holds, and less when the machine's speed
// drifts between runs. With fewer than 2 values there is no interval.
func SummarizeProcesses(values []float64, level float64) ProcessSummary {
	s := ProcessSummary{Median: math.NaN(), Low: math.NaN(), High: math.NaN(), N: len(values)}
	if len(values) == 0 || slices.ContainsFunc(values, math.IsNaN) {
		return s
	}
	s.Median = median(values)
	s.Low, s.High = s.Median, s.Median
	n := float64(len(values))
	if len(values) < 2 || !(level > 0 && level < 1) {
		return s
	}
	sd := stat.StdDev(values, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-level)/2)
	half := t * sd * math.Sqrt(2*math.Pi/2/n)
	s.Low, s.High, s.Confidence = s.Median-half, s.Median+half, level
	return s
}
