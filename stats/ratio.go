package stats

import (
	"math"
	"slices"
)

// Ratio is x over ref: how many times ref x is. It is the one form of every ratio to a reference (a process's median
// over the median of the ref samples beside it, an instruction count over the ref's) and of one median over another.
// NaN unless ref is positive and finite.
func Ratio(x, ref float64) float64 {
	if !usable(ref) {
		return math.NaN()
	}
	return x / ref
}

// Change is the relative change from base to cur (0.1 for 10% more): cur over base, less 1. NaN unless base is
// positive and finite.
func Change(base, cur float64) float64 {
	return Ratio(cur, base) - 1
}

// usable reports whether v can be divided by, or taken the log of: positive and finite.
func usable(v float64) bool { return v > 0 && !math.IsInf(v, 0) }

// ProcessSamples are one process's samples of a case and the samples of the reference measured beside them.
type ProcessSamples struct {
	Samples, Ref []float64
}

// LeastRatio is the result of LeastOverLeast.
type LeastRatio struct {
	Ratio float64
	// Low and High bound where another run's Ratio is expected, at Level (0 with fewer than 2 processes: then they
	// are Ratio).
	Low, High float64
	Level     float64
}

// LeastOverLeast is a case's ratio to the reference over processes: the least of its samples in any process over
// the least of the ref samples measured beside them, with a prediction interval for another run's ratio built from
// the processes' own ratios (each one's median over the median of its ref samples). A process without samples, or
// whose least values are not positive and finite, is left out of the ratio; with none left, the ratio is NaN.
//
// Why the least: on a shared machine a process runs at the machine's full speed or in a slower state, and a run
// catches a different mix of the two each time. Interference only adds time, so the least, taken separately for the
// case and for the ref, estimates both at full speed (Chen and Revels, "Robust benchmarking in noisy environments",
// 2016); a median over processes moves with the mix (docs/gate.md). The least sample rather than the least process
// median: a state can change within a process, and every sample is a chance to catch the machine at full speed.
//
// The interval is the ratio times exp(± t(level, n-1) · s · sqrt(π/n)), s the standard deviation of the logs of the
// processes' ratios. The least does not move with the mix of states as a median does, so no run-level term is added
// (PredictionInterval has one).
func LeastOverLeast(procs []ProcessSamples, level float64) LeastRatio {
	var least, leastRef, logs []float64
	for _, p := range procs {
		if len(p.Samples) == 0 || len(p.Ref) == 0 {
			continue
		}
		if l, lr := slices.Min(p.Samples), slices.Min(p.Ref); usable(l) && usable(lr) {
			least, leastRef = append(least, l), append(leastRef, lr)
		}
		if r := Ratio(Median(p.Samples), Median(p.Ref)); usable(r) {
			logs = append(logs, math.Log(r))
		}
	}
	if len(least) == 0 {
		return LeastRatio{Ratio: math.NaN(), Low: math.NaN(), High: math.NaN()}
	}
	r := LeastRatio{Ratio: slices.Min(least) / slices.Min(leastRef)}
	r.Low, r.High = r.Ratio, r.Ratio
	if half, ok := predictionHalfWidth(logs, level, 0); ok {
		r.Low, r.High, r.Level = r.Ratio*math.Exp(-half), r.Ratio*math.Exp(half), level
	}
	return r
}

// LeastMedianRatio is the least of medians over the least of refMedians (medians[i] and refMedians[i] of one
// process), leaving out the processes whose ref median is not positive: the ratio rule that artifacts of schemas 1
// and 3 were written by. NaN with no process left.
func LeastMedianRatio(medians, refMedians []float64) float64 {
	num, den := math.Inf(1), math.Inf(1)
	for i := range min(len(medians), len(refMedians)) {
		if refMedians[i] > 0 {
			num, den = min(num, medians[i]), min(den, refMedians[i])
		}
	}
	if math.IsInf(num, 1) {
		return math.NaN()
	}
	return num / den
}

// RatioValues are the values a test of a case's ratio to the reference compares, in the gate and in show. With two
// processes or more (processes), each process's ratio when every one has one (processRatios): the variance is
// between processes (docs/gate.md). Otherwise each sample over the reference's median, as a run of one process has
// nothing else. Nil when there is neither.
func RatioValues(processRatios []float64, processes int, samples []float64, refMedian float64) []float64 {
	if len(processRatios) >= 2 && len(processRatios) == processes {
		return processRatios
	}
	if !usable(refMedian) {
		return nil
	}
	out := make([]float64, len(samples))
	for i, s := range samples {
		out[i] = s / refMedian
	}
	return out
}
