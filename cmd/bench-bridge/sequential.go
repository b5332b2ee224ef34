package main

import (
	"fmt"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// sequential is compare's sequential rule (--budget): it looks at the pairs of every case as the rounds come
// (stats.SequentialPaired) and stops the session when every case of every program is clear, or when the budget has
// run out; the verdicts are then the paired test's at the last look's alpha, so that the error rates hold.
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
	if s.clear(interim(), k) {
		s.why = "every case was clear"
		return true
	}
	if over {
		s.why = fmt.Sprintf("the budget of %s ran out", s.budget)
		return true
	}
	return false
}

// clear reports whether every case of every program after the first has a clear answer at look k.
func (s *sequential) clear(arts []*artifact.Artifact, k int) bool {
	for _, c := range arts[0].Cases {
		opt := s.opts.Cases[c.Name]
		if c.Name == cases.RefCase || opt.Skip {
			continue
		}
		minEffect := s.opts.MinEffect
		if opt.MinEffect > 0 {
			minEffect = opt.MinEffect
		}
		for _, a := range arts[1:] {
			other := a.Case(c.Name)
			if other == nil {
				continue
			}
			xs, ys := analysis.PairedValues(&c, other)
			if clarity, _, err := stats.SequentialPaired(xs, ys, k, s.opts.Alpha, minEffect); err != nil || clarity == stats.Unclear {
				return false
			}
		}
	}
	return true
}

// judged are the gate's options for the verdicts after the session: the alpha of the last look.
func (s *sequential) judged() analysis.Options {
	o := s.opts
	if s.rounds != s.looked { // rounds after the last look (--runs ended them): one more look
		s.look, s.looked = s.look+1, s.rounds
	}
	if s.look > 0 {
		o.Alpha = stats.SequentialAlpha(s.opts.Alpha, s.look)
	}
	return o
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
