package session

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/stats"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Run measures jobs in one session (runner.Session: one process of each job a round, alternating) and returns the
// artifacts it wrote, with their files, and its error. rule, when not nil, may end the rounds early (Sequential).
func Run(ctx context.Context, jobs []*runner.Job, log io.Writer, rule *Sequential) ([]*artifact.Artifact, []string, error) {
	s, err := runner.NewSession(jobs, log)
	if err != nil {
		return nil, nil, err
	}
	if rule != nil {
		s.Stop = rule.stop
	}
	results, err := s.Run(ctx)
	var arts []*artifact.Artifact
	var files []string
	for _, r := range results {
		if r.Artifact != nil {
			arts, files = append(arts, r.Artifact), append(files, r.File)
		}
	}
	return arts, files, err
}

// Sequential is compare's sequential rule (--budget): it takes the looks as the rounds come and stops the session
// when the analysis finds every case of every program clear (analysis.SequentialClear), or when the budget has run
// out; the verdicts are then at the last look's alpha, and a case still unclear is undecided (Judged).
type Sequential struct {
	opts   analysis.Options
	budget time.Duration
	start  time.Time
	look   int    // the last look taken
	looked int    // the rounds at that look
	rounds int    // the rounds measured when it stopped
	why    string // why it stopped
}

// NewSequential is the rule for a session judged by opts within budget.
func NewSequential(opts analysis.Options, budget time.Duration) *Sequential {
	return &Sequential{opts: opts, budget: budget}
}

// stop is runner.Session's Stop; the budget counts from its first call, when the programs are built.
func (s *Sequential) stop(rounds int, interim func() []*artifact.Artifact) bool {
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

// Judged are the gate's options for the verdicts after the session: the alpha of the last look, and where the rule
// ended (analysis.SequentialOptions).
func (s *Sequential) Judged() analysis.Options {
	if s.rounds != s.looked { // rounds after the last look (--runs ended them): one more look
		s.look, s.looked = s.look+1, s.rounds
	}
	return analysis.SequentialOptions(s.opts, s.look, fmt.Sprintf("%g s", s.budget.Seconds()))
}

// Note says how the session ended, as a warning of kind analysis.Sequential.
func (s *Sequential) Note() analysis.Warning {
	why := s.why
	if why == "" {
		why = "it reached --runs"
	}
	return analysis.Warning{Kind: analysis.Sequential, Text: fmt.Sprintf("sequential: %d rounds in %s, stopped because %s; look %d, whose alpha is %.2g (the looks' alphas sum to %g)",
		s.rounds, time.Since(s.start).Round(100*time.Millisecond), why, s.look, stats.SequentialAlpha(s.opts.Alpha, s.look), s.opts.Alpha)}
}

// Each measures plan on every target of opened (nil where a target could not be opened), a session each, at once
// where they are different machines, each holding its device for its run (hold). track, when not nil, is given each
// job before it runs (a display's progress). It returns the artifacts written, with their files, and each target's
// error by its index in opened, which names the target.
func Each(ctx context.Context, plan Plan, opened []targets.Target, log io.Writer, hold runner.Hold, track func(*runner.Job)) ([]*artifact.Artifact, []string, []error) {
	errs := make([]error, len(opened))
	var sessions []*runner.Session
	var of []int // the index in opened of each session
	for i, t := range opened {
		if t == nil {
			continue
		}
		job := plan.Job(t, log)
		if track != nil {
			track(job)
		}
		s, err := runner.NewSession([]*runner.Job{job}, log)
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", t.Name(), err)
			continue
		}
		sessions, of = append(sessions, s), append(of, i)
	}
	results, runErrs := runner.RunAll(ctx, sessions, hold)
	var arts []*artifact.Artifact
	var files []string
	for k, rs := range results {
		for _, r := range rs {
			if r.Artifact != nil {
				arts, files = append(arts, r.Artifact), append(files, r.File)
			}
		}
		if runErrs[k] != nil {
			errs[of[k]] = runErrs[k]
		}
	}
	return arts, files, errs
}

// OnTargets measures plan on each named target: it opens them at once (OpenAll), measures a session on each (Each),
// each holding its device for up to wait (Hold), and closes every one it opened. It returns the artifacts written,
// with their files, and an error that names each target that could not be opened or failed (Failed).
func OnTargets(ctx context.Context, open OpenFunc, names []string, specs map[string]targets.Spec, o targets.Overrides, plan Plan,
	wait time.Duration, log io.Writer, track func(*runner.Job)) ([]*artifact.Artifact, []string, error) {
	opened, errs := OpenAll(ctx, open, names, specs, o)
	defer func() {
		for _, t := range opened {
			if t != nil {
				t.Close()
			}
		}
	}()
	arts, files, runErrs := Each(ctx, plan, opened, log, Hold(wait, log), track)
	for i, err := range runErrs {
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", names[i], err)
		}
	}
	return arts, files, Failed(names, errs)
}
