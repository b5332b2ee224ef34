// Package stats holds every statistical rule bench-bridge applies to benchmark samples, each in one place: the
// interval level (Level), the median with a distribution-free confidence interval (Summarize), the prediction
// interval of a run's median over its processes (PredictionInterval) and when it is too wide (Unstable), a case's
// ratio to the reference (Ratio, LeastOverLeast, and LeastMedianRatio for older artifacts) and the values a test of
// it compares (RatioValues), whether two runs ran at one speed (StateShift) and which processes of one run did not
// (MarkProcesses), the Mann-Whitney U test and the two-sample comparison built on it (Compare), the paired ratio and
// sign test (PairedRatio), and when a change counts (ChangeThresholds). The significance level show and gate share
// is DefaultAlpha, what counts as significant is Significant (p <= alpha, as benchstat decides), and which
// thresholds are thresholds at all is CheckAlpha and CheckEffect.
//
// Every function is pure: it takes []float64 samples, never modifies them, and returns values. Nothing here prints
// or does I/O. As in golang.org/x/perf/benchmath, tunable levels live in structs (Thresholds, StabilityThresholds,
// StateShiftThresholds, MarkThresholds, ChangeThresholds) with defaults beside them, and problems that do not stop
// the computation, such as too few samples for the requested confidence, are returned as data for the caller to
// show.
//
// The results are meant to agree with benchstat's: the median interval picks the same order statistics as
// benchmath.AssumeNothing (via github.com/aclements/go-moremath/stats.QuantileCI), and the p-values are those of
// moremath's Mann-Whitney U test, which benchstat uses.
package stats
