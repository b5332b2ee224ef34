package stats

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Paired is the result of PairedRatio.
type Paired struct {
	// Ratio is the geometric mean of b[i] / a[i]: above 1 means b's values are larger.
	Ratio float64
	// Low and High bound Ratio's confidence interval at Level.
	Low, High float64
	Level     float64
	// P is the two-sided p-value of the paired t test that the mean log ratio is 0.
	P float64
	N int
}

// PairedRatio compares b against a pair by pair (a[i] and b[i] measured side by side, as compare's adjacent
// processes are): a paired t test on the log ratios log(b[i] / a[i]), which takes out what the pairs share (the
// machine's speed at that moment) and leaves the change. It needs at least 2 pairs of positive values; level is
// the confidence of the interval (0.95).
func PairedRatio(a, b []float64, level float64) (Paired, error) {
	if len(a) != len(b) {
		return Paired{}, errors.New("paired test: the samples differ in length")
	}
	if len(a) < 2 {
		return Paired{}, errors.New("paired test: need at least 2 pairs")
	}
	if !(level > 0 && level < 1) {
		return Paired{}, errors.New("paired test: level not in (0, 1)")
	}
	d := make([]float64, len(a))
	for i := range a {
		if !(a[i] > 0 && b[i] > 0) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return Paired{}, errors.New("paired test: values must be positive and finite")
		}
		d[i] = math.Log(b[i] / a[i])
	}
	n := float64(len(d))
	mean, sd := stat.MeanStdDev(d, nil)
	r := Paired{Ratio: math.Exp(mean), Level: level, N: len(d)}
	tdist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}
	se := sd / math.Sqrt(n)
	if se == 0 {
		// Every pair moved by exactly the same ratio: certain, unless that ratio is 1.
		r.Low, r.High, r.P = r.Ratio, r.Ratio, 1
		if slices.ContainsFunc(d, func(x float64) bool { return x != 0 }) {
			r.P = 0
		}
		return r, nil
	}
	half := tdist.Quantile(1-(1-level)/2) * se
	r.Low, r.High = math.Exp(mean-half), math.Exp(mean+half)
	r.P = 2 * tdist.Survival(math.Abs(mean)/se)
	return r, nil
}
