// Package analysis is every decision bench-bridge makes about loaded artifacts, between the artifacts (with their
// files) and every view: show, compare, gate and the history's views render what it gives and decide nothing.
//
// The gate's rule (Judge): each case's ratio to ref_js_loop (which takes out how fast the machine is today), not raw
// times, regresses only when the change is both significant (Mann-Whitney U over the processes' ratios) and larger
// than a minimum effect; with instruction or allocation counts (the same for the same binary) it needs no
// statistics and uses a tight threshold. Absolute guards bound a case's ratio whatever the baseline says. Artifacts
// of one session are judged pair by pair (JudgePaired: a sign test over the process pairs). The statistics
// themselves are pure functions in package stats; this package chooses which applies and returns results as data.
// It runs nothing and prints nothing.
package analysis
