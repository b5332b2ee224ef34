// Package stats holds the statistics bench-bridge reports about benchmark
// samples: the median with a distribution-free confidence interval, the
// Mann-Whitney U test, and a two-sample comparison built from them.
//
// It is the one place for each: the median (Median), the significance level
// show and gate share (DefaultAlpha), what counts as significant
// (Significant: p <= alpha, as benchstat decides) and which thresholds are
// thresholds at all (CheckAlpha, CheckEffect).
//
// Every function is pure: it takes []float64 samples, never modifies them,
// and returns values. Nothing here prints or does I/O. As in
// golang.org/x/perf/benchmath, tunable levels live in a struct
// (Thresholds) and problems that do not stop the computation, such as
// too few samples for the requested confidence, are returned as data in
// a Warnings field for the caller to show.
//
// The results are meant to agree with benchstat's: the median interval
// picks the same order statistics as benchmath.AssumeNothing (via
// github.com/aclements/go-moremath/stats.QuantileCI), and the p-values
// are those of moremath's Mann-Whitney U test, which benchstat uses.
package stats
