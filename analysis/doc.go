// Package analysis is every decision bench-bridge makes about loaded artifacts and the history, between them (the
// artifacts with their files, the history's store) and every view: show, compare, gate, the measuring commands and
// the history's views render what it gives and decide nothing.
//
// For artifacts it gives one model. Build makes the Table of artifacts side by side: per-cell summaries, each column compared with
// the first by Compare, and the warnings and notes as typed values (Warning, with a Kind). Compare is the one rule
// for a pair: artifacts of one session are paired (JudgePaired: the sign test over the process pairs), two sessions
// of one device are tested with the U test over the processes (Judge), and artifacts of different origins are not
// judged by time. The gate's rule (Judge): each case's ratio to ref_js_loop, not raw times, regresses only when the
// change is both significant and larger than a minimum effect; with instruction or allocation counts (the same for
// the same binary) no statistics and a tight threshold. Absolute guards bound a case's ratio whatever the baseline
// says. A comparison that could judge no case says why and what would judge it (Result.NotJudged).
// How a gate run ends is decided here too (Results.Outcome: regressed, judged nothing, passed); gate and compare
// --gate only map the outcome to an exit status.
// compare --budget's sequential rule is here as well (SequentialClear: is every case clear at this look;
// SequentialOptions: the last look's alpha); the command only times the looks.
//
// BuildHistory makes the History that the history's views render (history changes and noise, the page): its change
// points (package trend) with what each means (the bisect that finds its commit, whether it fails --fail-new, as a
// NewRegression warning), each line's levels with their band of noise, and the noise that gate and show --history
// take for an artifact's device (NoiseOf).
//
// The statistics themselves are pure functions in package stats; this package chooses which applies and returns
// results as data. It runs nothing and prints nothing.
package analysis
