package stats

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Level is the level of every interval bench-bridge computes and shows: the prediction intervals of an artifact and
// the interval of a paired ratio.
const Level = 0.95

// Prediction describes a run by its processes' values (one median or ratio per process): the median of them, and the
// prediction interval in which another run's median of as many processes is expected to fall.
type Prediction struct {
	Median    float64
	Low, High float64
	// Level is the level of [Low, High]; 0 when there were too few processes for an interval (then Low and High are
	// the median).
	Level float64
	N     int
}

// The variance of a run's own level, as a share of the variance between its processes: how far a whole run moves
// because of what its processes shared (the machine's state, their time), beyond what independent processes give.
const (
	// runLevelMixed is the share for processes that ran in several of the machine's states (no fastest state was
	// decided, or fewer than two processes ran the case in it): the mix of states a run catches differs from run to
	// run (22 sets of 5 runs, docs/method.md).
	runLevelMixed = 0.5
	// runLevelInState is the share for processes that ran the case in the device's fastest state: the mix no longer
	// moves the run, and what is left was measured at 0.25, the share whose intervals held another quiet run's
	// median in 95% of comparisons (docs/method.md, "ns/op in the device's fastest state").
	runLevelInState = 0.25
)

// PredictionInterval returns the median of the per-process values and a prediction interval at the given level for
// the median of another run of len(values) processes, in logs (times are positive and their noise multiplies):
//
//	median · exp(± t(level, n-1) · s · sqrt(2 · runLevel + π/n))
//
// where s is the standard deviation of the logs of the values, π/(2n) the variance of a median of n normal values
// over that of one value, and runLevel is runLevelMixed: the processes may have run in several states. A difference
// of two runs carries each run's level and each run's median noise, hence the 2. Processes close in time share the
// machine's state, which is why the run-level term is there (docs/gate.md). With fewer than 2 values, or a value
// that is not positive, there is no interval.
func PredictionInterval(values []float64, level float64) Prediction {
	return prediction(values, level, runLevelMixed)
}

// PredictionIntervalInState is PredictionInterval for values of processes that all ran in the device's fastest
// state, whose run level moves less (runLevelInState).
func PredictionIntervalInState(values []float64, level float64) Prediction {
	return prediction(values, level, runLevelInState)
}

func prediction(values []float64, level, runLevel float64) Prediction {
	s := Prediction{Median: math.NaN(), Low: math.NaN(), High: math.NaN(), N: len(values)}
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
	half, ok := predictionHalfWidth(logs, level, 2*runLevel)
	if !ok {
		return s
	}
	s.Low, s.High, s.Level = s.Median*math.Exp(-half), s.Median*math.Exp(half), level
	return s
}

// predictionHalfWidth is t(level, n-1) · s · sqrt(runLevel + π/n), s the standard deviation of values (see
// PredictionInterval); false with fewer than 2 values or a level outside (0, 1).
func predictionHalfWidth(values []float64, level, runLevel float64) (float64, bool) {
	n := float64(len(values))
	if len(values) < 2 || !(level > 0 && level < 1) {
		return 0, false
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-level)/2)
	return t * stat.StdDev(values, nil) * math.Sqrt(runLevel+math.Pi/n), true
}

// Spread is the relative half-width of p's interval: the larger of its two distances from the median, over the
// median (0.1 for ±10%), as benchstat shows it. NaN unless the median is positive.
func (p Prediction) Spread() float64 {
	if !(p.Median > 0) {
		return math.NaN()
	}
	return max(p.Median-p.Low, p.High-p.Median) / p.Median
}

// StabilityThresholds say when a case's interval is too wide to trust one run of it.
type StabilityThresholds struct {
	// MaxSpread is the Spread of a median's prediction interval above which the case is unstable: another run may
	// measure it further away than that.
	MaxSpread float64
}

// DefaultStability is the threshold bench-bridge warns at: ±10%.
var DefaultStability = StabilityThresholds{MaxSpread: 0.10}

// Wide is an interval that Unstable found too wide: its index and its Spread.
type Wide struct {
	Index  int
	Spread float64
}

// Unstable returns the intervals whose Spread is above th.MaxSpread, the widest first (ties in the order given).
func Unstable(intervals []Prediction, th StabilityThresholds) []Wide {
	var out []Wide
	for i, p := range intervals {
		if s := p.Spread(); s > th.MaxSpread {
			out = append(out, Wide{i, s})
		}
	}
	slices.SortStableFunc(out, func(x, y Wide) int { return cmp.Compare(y.Spread, x.Spread) })
	return out
}
