// Package analysis is every decision bench-bridge makes about loaded artifacts, between the artifacts (with their
// files) and every view: show, compare, gate and the measuring commands render what it gives and decide nothing.
//
// It gives one model. Build makes the Table of artifacts side by side: per-cell summaries, each column compared with
// the first by Compare, and the warnings and notes as typed values (Warning, with a Kind). Compare is the one rule
// for a pair: artifacts of one session are paired (JudgePaired: the sign test over the process pairs), two sessions
// of one device are tested with the U test over the processes (Judge), and artifacts of different origins are not
// judged by time. The gate's rule (Judge): each case's ratio to ref_js_loop, not raw times, regresses only when the
// change is both significant and larger than a minimum effect; with instruction or allocation counts (the same for
// the same binary) no statistics and a tight threshold. Absolute guards bound a case's ratio whatever the baseline
// says. A comparison that could judge no case says why and what would judge it (Result.NotJudged).
//
// The statistics themselves are pure functions in package stats; this package chooses which applies and returns
// results as data. It runs nothing and prints nothing.
package analysis
