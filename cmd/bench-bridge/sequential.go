package main

import (
	"fmt"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/stats"
)

// sequential runs compare's sequential rule (--budget): it takes the looks as the rounds come and stops the session
// when the analysis finds every case of every program clear (analysis.SequentialClear), or when the budget has run
// out; the verdicts are then at the last look's alpha (analysis.SequentialOptions).
type sequential struct {
	opts   analysis.Options
	budget time.Duration
	start  time.Time
	look   int    // the last look taken
	looked int    // the rounds at that look
	rounds int    // the rounds measured when it stopped
	why    string // why it stopped
}

// stop is runner.Session's Stop; the budget counts from its first call, when the programs are built.
func (s *sequential) stop(rounds int, interim func() []*artifact.Artifact) bool {
	if rounds == 0 {
		s.start = time.Now()
		return false
	}
	s.rounds = rounds
	k, isLook := stats.SequentialLook(rounds)
	over := time.Since(s.start) >= s.budget
	if !isLook && !over {
		return false
	}
	if over && !isLook { // a last look of its own, spending its share of alpha
		k = s.look + 1
	}
	s.look, s.looked = k, rounds
	if analysis.SequentialClear(interim(), k, s.opts) {
		s.why = "every case was clear"
		return true
	}
	if over {
		s.why = fmt.Sprintf("the budget of %s ran out", s.budget)
		return true
	}
	return false
}

// judged are the gate's options for the verdicts after the session: the alpha of the last look.
func (s *sequential) judged() analysis.Options {
	if s.rounds != s.looked { // rounds after the last look (--runs ended them): one more look
		s.look, s.looked = s.look+1, s.rounds
	}
	return analysis.SequentialOptions(s.opts, s.look, fmt.Sprintf("%g s", s.budget.Seconds()))
}

// note says how the session ended.
func (s *sequential) note() string {
	why := s.why
	if why == "" {
		why = "it reached --runs"
	}
	return fmt.Sprintf("sequential: %d rounds in %s, stopped because %s; look %d, whose alpha is %.2g (the looks' alphas sum to %g)",
		s.rounds, time.Since(s.start).Round(100*time.Millisecond), why, s.look, stats.SequentialAlpha(s.opts.Alpha, s.look), s.opts.Alpha)
}
