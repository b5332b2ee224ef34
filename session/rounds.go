package session

import (
	"fmt"
	"strconv"
	"time"
)

// CompareRounds are the rounds of a compare (and of each step of bisect by time) when they are fixed: --budget 0,
// or --runs not given with a budget.
const CompareRounds = 40

// CompareBudget is the default budget of a sequential session (compare --budget): its rounds are sequential unless
// --runs alone fixes their number. A minute found a 2% slowdown of one case on a quiet machine (docs/gate.md) and is
// what a pull request can wait.
const CompareBudget = time.Minute

// SequentialRounds caps the rounds of a sequential session when --runs does not: the budget ends it first.
const SequentialRounds = 10000

// RoundsRule is how --budget and --runs decide the rounds of compare and bisect (Rounds), as their help says it.
var RoundsRule = "given alone, exactly that many; with --budget, at most that many; by default as many as --budget " +
	"allows (at most " + strconv.Itoa(SequentialRounds) + "), or " + strconv.Itoa(CompareRounds) + " with --budget 0"

// Rounds decides a session's budget and rounds from --budget and --runs, for compare and bisect by time: sequential
// within the budget (the default), capped by --runs when both are given; --runs alone, or --budget 0, fixes the
// rounds.
func Rounds(budget time.Duration, budgetSet bool, runs int, runsSet bool) (time.Duration, int, error) {
	switch {
	case budget < 0:
		return 0, 0, fmt.Errorf("--budget %s: want a positive duration, like 60s, or 0 for a fixed --runs", budget)
	case runsSet && !budgetSet:
		return 0, runs, nil
	case budget > 0 && !runsSet:
		return budget, SequentialRounds, nil
	}
	return budget, runs, nil
}

// BisectRounds decides the budget and rounds of each step of bisect: by instructions, one process (the count is
// exact; --runs may ask for more) and no budget; by time, as compare (Rounds), --runs alone fixing them at
// CompareRounds by default.
func BisectRounds(instructions bool, budget time.Duration, budgetSet bool, runs int, runsSet bool) (time.Duration, int, error) {
	switch {
	case instructions && runsSet:
		return 0, runs, nil
	case instructions:
		return 0, 1, nil // the timed processes only carry the count
	case !runsSet:
		runs = CompareRounds
	}
	return Rounds(budget, budgetSet, runs, runsSet)
}
