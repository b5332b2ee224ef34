package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Commits is the search of `bench-bridge bisect`: the first commit of a bridge of the config, between GOOD and BAD,
// whose case is slower than GOOD's. Each step builds one commit (NAME@COMMIT) and measures it against GOOD: by
// instruction counts, GOOD counted once; or by time, GOOD and the commit in one session whose rounds alternate, with
// compare's paired test. It prints each step, and what it found, on Out.
type Commits struct {
	Config       *config.Config
	Bridge       string // the bridge's name in the config
	Case         string
	Good, Bad    string // as the command line names them
	Instructions bool   // by instruction counts (callgrind) rather than by time
	// Options are the gate's: MinEffect is the threshold by time, InstructionsThreshold by instructions.
	Options analysis.Options
	// Budget, by time, makes each step's rounds sequential (session.Sequential): a step stops when its answer is clear.
	Budget time.Duration
	// Plan is the bridge's plan at any revision: Program.User is replaced by the step's commit.
	Plan     session.Plan
	Target   targets.Target
	Dir      string // the steps' artifacts
	Out, Log io.Writer
	// TargetName is the target as the command line names it, for the profile command that follows.
	TargetName string

	good    build.Revision
	goodIPO float64 // GOOD's instructions per op, counted once
}

// measured is one commit measured against GOOD.
type measured struct {
	change, low, high float64 // relative change of the case; low and high bound it by time
	base, cur         float64
	regressed         bool   // by time: the paired test's verdict
	untold            string // by time: why the paired test could not tell (not judged, undecided); "" when it could
}

// Threshold is the least relative slowdown that counts, for the metric.
func (c *Commits) Threshold() float64 {
	if c.Instructions {
		return c.Options.InstructionsThreshold
	}
	return c.Options.MinEffect
}

// Resolve resolves GOOD and BAD, and lists the commits after GOOD up to BAD, first parents only.
func (c *Commits) Resolve(ctx context.Context) (bad build.Revision, commits []string, err error) {
	dir := c.Config.Dir()
	if c.good, err = build.ResolveRevision(ctx, dir, c.Good); err != nil {
		return bad, nil, fmt.Errorf("GOOD %s: %w", c.Good, err)
	}
	if bad, err = build.ResolveRevision(ctx, dir, c.Bad); err != nil {
		return bad, nil, fmt.Errorf("BAD %s: %w", c.Bad, err)
	}
	if _, err := build.Git(ctx, dir, "merge-base", "--is-ancestor", c.good.Commit, bad.Commit); err != nil {
		return bad, nil, fmt.Errorf("GOOD %s (%s) is not an ancestor of BAD %s (%s)", c.Good, c.good.Short(), c.Bad, bad.Short())
	}
	list, err := build.Git(ctx, dir, "rev-list", "--reverse", "--first-parent", c.good.Commit+".."+bad.Commit)
	if err != nil {
		return bad, nil, err
	}
	if commits = strings.Fields(list); len(commits) == 0 {
		return bad, nil, fmt.Errorf("no commits after GOOD %s up to BAD %s: they are the same commit", c.Good, c.Bad)
	}
	return bad, commits, nil
}

// Run searches commits (Resolve's) for the first slower than GOOD, measuring one commit a step on Target, and says
// what it found.
func (c *Commits) Run(ctx context.Context, bad build.Revision, commits []string) error {
	metric := "time"
	if c.Instructions {
		metric = "instructions"
	}
	fmt.Fprintf(c.Out, "bisect %s: %s by %s, slower than GOOD %s (%s) by more than %s; %d commits up to BAD %s, about %d steps\n",
		c.Bridge, c.Case, metric, c.good.Short(), c.good.Subject, pct(c.Threshold()), len(commits), bad.Short(), steps(len(commits)))
	if c.Instructions {
		var err error
		if c.goodIPO, err = c.instructions(ctx, c.good, "good"); err != nil {
			return fmt.Errorf("GOOD %s: %w", c.Good, err)
		}
	}
	return c.search(ctx, bad, commits)
}

// search finds the first of commits slower than GOOD, measuring one commit a step, and says what it found.
func (c *Commits) search(ctx context.Context, bad build.Revision, commits []string) error {
	revs := make([]build.Revision, len(commits))
	results := map[int]measured{}
	test := func(i int) (Outcome, error) {
		rev, err := build.ResolveRevision(ctx, c.Config.Dir(), commits[i])
		if err != nil {
			return 0, err
		}
		revs[i] = rev
		m, out, err := c.step(ctx, rev, fmt.Sprintf("step-%02d", len(results)+1))
		results[i] = m
		return out, err
	}
	r, err := Search(len(commits), test)
	if err != nil {
		return err
	}
	if r.First < 0 {
		var short []string
		for _, i := range r.Candidates {
			short = append(short, build.ShortCommit(commits[i]))
		}
		return fmt.Errorf("commits that do not build, or whose step could not tell, hide the first slower one: it is one of %s", strings.Join(short, " "))
	}
	if _, ok := r.Tested(r.First); !ok { // BAD, taken as slower: measure it for the change it made
		if out, err := test(r.First); err != nil {
			return err
		} else if out == Skip {
			return fmt.Errorf("BAD %s (%s) could not be told from GOOD %s (%s): no commit to find", c.Bad, bad.Short(), c.Good, results[r.First].untold)
		} else if out != Bad {
			return fmt.Errorf("BAD %s (%s) is not slower than GOOD %s by more than %s: no commit to find", c.Bad, bad.Short(), c.Good, pct(c.Threshold()))
		}
	}
	first, m := revs[r.First], results[r.First]
	parent := c.good.Commit
	if r.First > 0 {
		parent = commits[r.First-1]
	}
	fmt.Fprintf(c.Out, "first slower commit: %s %s\n  %s: %s against GOOD %s\n", first.Commit, first.Subject, c.Case, c.describe(m), c.good.Short())
	fmt.Fprintf(c.Out, "  what it added, as a differential flame graph: bench-bridge profile %s %s --bridge %s@%s --diff %s@%s\n",
		c.TargetName, c.Case, c.Bridge, first.Short(), c.Bridge, build.ShortCommit(parent))
	fmt.Fprintf(c.Out, "%d commits built and measured (with GOOD), %d steps\n", len(r.Steps)+1, len(r.Steps))
	return nil
}

// step measures rev against GOOD and says whether it is slower: bad, good, or skipped when it does not build or its
// test could not tell.
func (c *Commits) step(ctx context.Context, rev build.Revision, name string) (measured, Outcome, error) {
	m, err := c.measure(ctx, rev, name)
	var noBuild *build.RevisionBuildError
	switch {
	case errors.As(err, &noBuild):
		fmt.Fprintf(c.Out, "step: %s %s: does not build: skipped\n", rev.Short(), rev.Subject)
		return measured{}, Skip, nil
	case err != nil:
		return m, 0, fmt.Errorf("commit %s: %w", rev.Short(), err)
	case m.untold != "": // neither good nor bad: a step that cannot tell is no evidence either way
		fmt.Fprintf(c.Out, "step: %s %s: could not tell (%s): skipped\n", rev.Short(), rev.Subject, m.untold)
		return m, Skip, nil
	}
	out := Good
	if (c.Instructions && m.change > c.Threshold()) || m.regressed {
		out = Bad
	}
	fmt.Fprintf(c.Out, "step: %s %s: %s: %s\n", rev.Short(), rev.Subject, c.describe(m), out)
	return m, out, nil
}

// steps is how many steps a search of n commits takes: the tests of a binary search over n-1 untested commits.
func steps(n int) int {
	s := 0
	for k := n - 1; k > 0; k /= 2 {
		s++
	}
	return s
}

// job is the job of the bridge at rev, its artifact at out.
func (c *Commits) job(rev build.Revision, out string) (*runner.Job, error) {
	p := c.Plan
	u, err := session.Bridge(c.Config, c.Bridge, rev.Commit)
	if err != nil {
		return nil, err
	}
	p.Program.User, p.Out = u, out
	return p.Job(c.Target, c.Log), nil
}

// measure measures rev against GOOD by the metric.
func (c *Commits) measure(ctx context.Context, rev build.Revision, step string) (measured, error) {
	if c.Instructions {
		v, err := c.instructions(ctx, rev, step)
		return measured{change: v/c.goodIPO - 1, base: c.goodIPO, cur: v}, err
	}
	var jobs []*runner.Job
	for i, r := range []build.Revision{c.good, rev} {
		job, err := c.job(r, filepath.Join(c.Dir, fmt.Sprintf("%s-%c-%s.json", step, 'a'+i, r.Short())))
		if err != nil {
			return measured{}, err
		}
		jobs = append(jobs, job)
	}
	opts := c.Options
	var seq *session.Sequential
	if c.Budget > 0 {
		seq = session.NewSequential(opts, c.Budget)
	}
	arts, files, err := session.Run(ctx, jobs, c.Log, seq)
	if err != nil {
		return measured{}, err
	}
	if seq != nil {
		opts = seq.Judged()
		fmt.Fprintln(c.Log, seq.Note().Text)
	}
	res, err := analysis.JudgePaired(arts[0], arts[1], files[0], files[1], opts)
	if err != nil {
		return measured{}, err
	}
	for _, r := range res.Cases {
		if r.Case == c.Case {
			m := measured{change: r.Change, low: r.Low, high: r.High, base: r.Baseline, cur: r.Current,
				regressed: r.Verdict == analysis.Regressed}
			if r.Verdict == analysis.Unjudged || r.Verdict == analysis.Undecided {
				m.untold = string(r.Verdict) + ": " + r.Note
			}
			return m, nil
		}
	}
	var why []string
	for _, w := range res.Notes {
		why = append(why, w.String())
	}
	return measured{}, fmt.Errorf("%s: no paired comparison of %s (%s)", files[1], c.Case, strings.Join(why, "; "))
}

// instructions counts the case's instructions per op of the bridge at rev.
func (c *Commits) instructions(ctx context.Context, rev build.Revision, step string) (float64, error) {
	job, err := c.job(rev, filepath.Join(c.Dir, fmt.Sprintf("%s-%s.json", step, rev.Short())))
	if err != nil {
		return 0, err
	}
	arts, files, err := session.Run(ctx, []*runner.Job{job}, c.Log, nil)
	if err != nil {
		return 0, err
	}
	r := arts[0].Case(c.Case)
	if r == nil || r.InstructionsPerOp == nil || *r.InstructionsPerOp <= 0 {
		return 0, fmt.Errorf("%s: no instruction count of %s", files[0], c.Case)
	}
	return *r.InstructionsPerOp, nil
}

// describe says what a step measured.
func (c *Commits) describe(m measured) string {
	if c.Instructions {
		return fmt.Sprintf("%+.2f%% instructions/op (%.0f -> %.0f)", 100*m.change, m.base, m.cur)
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%] ×ref (%.3g -> %.3g)", 100*m.change, 100*m.low, 100*m.high, m.base, m.cur)
}

// pct writes a share as a percentage: 0.05 -> 5%.
func pct(v float64) string { return fmt.Sprintf("%g%%", 100*v) }
