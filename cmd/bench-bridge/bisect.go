package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/session"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/bisect"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/targets"
)

// bisectOptions are bisect's: the range, the bridge and case, how to measure and what counts as slower.
type bisectOptions struct {
	IO         *IOStreams
	OpenTarget openFunc
	Builder    buildFunc
	Config     configFunc
	ctx        context.Context

	Good, Bad  string
	Target     string
	ConfigFile string
	Build      buildFlags
	Measure    measureFlags
	Device     targets.Overrides
	Threshold  float64
	runsSet    bool
	// Budget, by time, makes each step's rounds sequential (compare --budget): a step stops when its answer is clear.
	Budget    time.Duration
	budgetSet bool
}

// newCmdBisect is `bench-bridge bisect GOOD BAD --bridge NAME --cases CASE`.
func newCmdBisect(f *Factory, runF func(*bisectOptions) error) *cobra.Command {
	o := &bisectOptions{IO: f.IO, OpenTarget: f.OpenTarget, Builder: f.Builder, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "bisect GOOD BAD --bridge NAME --cases CASE",
		Short: "Find the first commit between GOOD and BAD of a bridge of yours whose CASE is slower than GOOD's",
		Long: `bisect searches the commits after GOOD up to BAD (along the first parents, in the bridge's repository) for the first whose CASE is slower than GOOD's by more than --threshold, as git bisect does: each step
builds one commit (NAME@COMMIT, docs/bridge.md) and measures it against GOOD. BAD is taken as slower without
measuring it, unless the search ends there. A commit that does not build is skipped, as git bisect skip does.

--metric instructions (valgrind's callgrind) counts CASE's instructions per op: exact, one process per commit, GOOD
counted once; the threshold defaults to the gate's instructions threshold (1%). --metric time measures each commit
and GOOD in one session, their processes alternating in rounds that stop as soon as the answer is clear, at the
latest after --budget (--runs alone fixes them, as in compare), and takes the paired test of compare; the threshold
defaults to the gate's minimum effect (10%). The artifacts go to ` + DefaultOutDir + `/bisect-TARGET unless --out
names another directory.`,
		Example: `  bench-bridge bisect v1.2 main --bridge mine --cases script_to_host_scalar --metric instructions
  bench-bridge bisect c29 c30 --bridge mine --cases callback --runs 20`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx, o.Good, o.Bad = cmd.Context(), args[0], args[1]
			fl := cmd.Flags()
			o.Measure.changed(fl)
			o.Build.changed(fl)
			o.runsSet, o.budgetSet = fl.Changed("runs"), fl.Changed("budget")
			if runF != nil {
				return runF(o)
			}
			return bisectRun(o)
		},
	}
	registerMeasuring(cmd, &o.Measure, &o.Build, &o.ConfigFile, o.Config, &o.Device, true)
	fl := cmd.Flags()
	fl.StringVar(&o.Target, "target", localName(), "the target to measure on")
	fl.DurationVar(&o.Budget, "budget", compareBudget, "by time: each step's rounds stop as soon as the answer is clear, at the latest after this long (0: the --runs rounds, fixed; compare --budget)")
	fl.Float64Var(&o.Threshold, "threshold", 0, "least relative slowdown that counts, 0.05 for 5% (default: the gate's for the metric)")
	fl.Lookup("out").Usage = "directory for the artifacts of the steps (default " + DefaultOutDir + "/bisect-TARGET)"
	fl.Lookup("runs").Usage = "by time: rounds of each step's session, GOOD and the commit alternating: " + roundsRule + "; by instructions: processes (1 unless given)"
	fl.Lookup("runs").DefValue = "0"
	return cmd
}

// bisector measures commits of one bridge against GOOD on one target.
type bisector struct {
	o       *bisectOptions
	cfg     *config.Config
	t       targets.Target
	name    string // the bridge
	caseN   string
	dir     string
	gopts   analysis.Options
	good    build.Revision
	goodIPO float64 // GOOD's instructions per op, counted once
	log     io.Writer
}

// measured is one commit measured against GOOD.
type measured struct {
	change, low, high float64 // relative change of CASE; low and high bound it by time
	base, cur         float64
	regressed         bool   // by time: the paired test's verdict
	untold            string // by time: why the paired test could not tell (not judged, undecided); "" when it could
}

func bisectRun(o *bisectOptions) error {
	bs, err := newBisector(o)
	if err != nil {
		return err
	}
	bad, commits, err := bs.commits()
	if err != nil {
		return err
	}
	t, err := o.OpenTarget(o.ctx, o.Target, bs.cfg.Specs(), o.Device)
	if err != nil {
		return err
	}
	defer t.Close()
	bs.t = t
	if bs.dir = o.Measure.out; bs.dir == "" {
		bs.dir = filepath.Join(DefaultOutDir, "bisect-"+t.Name())
	}
	fmt.Fprintf(o.IO.Out, "bisect %s: %s by %s, slower than GOOD %s (%s) by more than %s; %d commits up to BAD %s, about %d steps\n",
		bs.name, bs.caseN, o.Measure.record, bs.good.Short(), bs.good.Subject, pct(bs.threshold()), len(commits), bad.Short(), steps(len(commits)))
	if o.Measure.record == recordInstructions {
		if bs.goodIPO, err = bs.instructions(bs.good, "good"); err != nil {
			return fmt.Errorf("GOOD %s: %w", o.Good, err)
		}
	}
	return bs.search(bad, commits)
}

// newBisector checks bisect's flags against the config, before anything is built: one bridge of the config, one
// case, the rounds and the threshold.
func newBisector(o *bisectOptions) (*bisector, error) {
	cfg, err := o.Config(o.ConfigFile)
	if err != nil {
		return nil, err
	}
	if o.Build.bridge == "" || strings.Contains(o.Build.bridge, "@") {
		return nil, fmt.Errorf("--bridge NAME: bisect needs a bridge of the config (without @REV: GOOD and BAD are the revisions)")
	}
	names := strings.Split(o.Measure.cases, ",")
	if len(names) != 1 || names[0] == "" || strings.HasPrefix(names[0], "ref_js_loop") {
		return nil, fmt.Errorf("--cases %q: bisect follows one case (not ref_js_loop), like --cases script_to_host_scalar", o.Measure.cases)
	}
	switch {
	case o.Measure.record == recordInstructions:
		o.Budget = 0 // the count is exact: one process, no rounds to stop
		if !o.runsSet {
			o.Measure.runs = 1 // the timed processes only carry the count
		}
	case !o.runsSet:
		o.Measure.runs = compareRounds
	}
	if o.Measure.record != recordInstructions {
		if o.Budget, o.Measure.runs, err = roundsOf(o.Budget, o.budgetSet, o.Measure.runs, o.runsSet); err != nil {
			return nil, err
		}
	}
	bs := &bisector{o: o, cfg: cfg, name: o.Build.bridge, caseN: names[0], log: o.IO.ErrOut}
	if bs.gopts, err = gateThresholds(cfg, thresholdFlags{}); err != nil {
		return nil, err
	}
	switch {
	case o.Threshold < 0 || o.Threshold != o.Threshold || o.Threshold > 10:
		return nil, fmt.Errorf("--threshold %v: want a share between 0 and 10, like 0.05", o.Threshold)
	case o.Threshold > 0:
		bs.gopts.MinEffect, bs.gopts.InstructionsThreshold = o.Threshold, o.Threshold
	}
	if o.Measure.record != recordInstructions {
		warnTooFewRounds(o.IO.ErrOut, o.Measure.runs, o.Budget > 0, bs.gopts)
	}
	// Check the bridge, the case and the flags before anything is built.
	_, err = bs.plan(build.Revision{Commit: "HEAD"}, "")
	return bs, err
}

// threshold is the least relative slowdown that counts, for the metric.
func (bs *bisector) threshold() float64 {
	if bs.o.Measure.record == recordInstructions {
		return bs.gopts.InstructionsThreshold
	}
	return bs.gopts.MinEffect
}

// commits resolves GOOD (into bs.good) and BAD, and lists the commits after GOOD up to BAD, first parents only.
func (bs *bisector) commits() (bad build.Revision, commits []string, err error) {
	o, dir := bs.o, bs.cfg.Dir()
	if bs.good, err = build.ResolveRevision(o.ctx, dir, o.Good); err != nil {
		return bad, nil, fmt.Errorf("GOOD %s: %w", o.Good, err)
	}
	if bad, err = build.ResolveRevision(o.ctx, dir, o.Bad); err != nil {
		return bad, nil, fmt.Errorf("BAD %s: %w", o.Bad, err)
	}
	if _, err := build.Git(o.ctx, dir, "merge-base", "--is-ancestor", bs.good.Commit, bad.Commit); err != nil {
		return bad, nil, fmt.Errorf("GOOD %s (%s) is not an ancestor of BAD %s (%s)", o.Good, bs.good.Short(), o.Bad, bad.Short())
	}
	list, err := build.Git(o.ctx, dir, "rev-list", "--reverse", "--first-parent", bs.good.Commit+".."+bad.Commit)
	if err != nil {
		return bad, nil, err
	}
	if commits = strings.Fields(list); len(commits) == 0 {
		return bad, nil, fmt.Errorf("no commits after GOOD %s up to BAD %s: they are the same commit", o.Good, o.Bad)
	}
	return bad, commits, nil
}

// search finds the first of commits slower than GOOD, measuring one commit a step, and says what it found.
func (bs *bisector) search(bad build.Revision, commits []string) error {
	o, w := bs.o, bs.o.IO.Out
	revs := make([]build.Revision, len(commits))
	results := map[int]measured{}
	test := func(i int) (bisect.Outcome, error) {
		rev, err := build.ResolveRevision(o.ctx, bs.cfg.Dir(), commits[i])
		if err != nil {
			return 0, err
		}
		revs[i] = rev
		m, out, err := bs.step(rev, fmt.Sprintf("step-%02d", len(results)+1))
		results[i] = m
		return out, err
	}
	r, err := bisect.Search(len(commits), test)
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
		} else if out == bisect.Skip {
			return fmt.Errorf("BAD %s (%s) could not be told from GOOD %s (%s): no commit to find", o.Bad, bad.Short(), o.Good, results[r.First].untold)
		} else if out != bisect.Bad {
			return fmt.Errorf("BAD %s (%s) is not slower than GOOD %s by more than %s: no commit to find", o.Bad, bad.Short(), o.Good, pct(bs.threshold()))
		}
	}
	c, m := revs[r.First], results[r.First]
	parent := bs.good.Commit
	if r.First > 0 {
		parent = commits[r.First-1]
	}
	fmt.Fprintf(w, "first slower commit: %s %s\n  %s: %s against GOOD %s\n", c.Commit, c.Subject, bs.caseN, bs.describe(m), bs.good.Short())
	fmt.Fprintf(w, "  what it added, as a differential flame graph: bench-bridge profile %s %s --bridge %s@%s --diff %s@%s\n",
		o.Target, bs.caseN, bs.name, c.Short(), bs.name, build.ShortCommit(parent))
	fmt.Fprintf(w, "%d commits built and measured (with GOOD), %d steps\n", len(r.Steps)+1, len(r.Steps))
	return nil
}

// step measures rev against GOOD and says whether it is slower: bad, good, or skipped when it does not build or its
// test could not tell.
func (bs *bisector) step(rev build.Revision, name string) (measured, bisect.Outcome, error) {
	w := bs.o.IO.Out
	m, err := bs.measure(rev, name)
	var noBuild *build.RevisionBuildError
	switch {
	case errors.As(err, &noBuild):
		fmt.Fprintf(w, "step: %s %s: does not build: skipped\n", rev.Short(), rev.Subject)
		return measured{}, bisect.Skip, nil
	case err != nil:
		return m, 0, fmt.Errorf("commit %s: %w", rev.Short(), err)
	case m.untold != "": // neither good nor bad: a step that cannot tell is no evidence either way
		fmt.Fprintf(w, "step: %s %s: could not tell (%s): skipped\n", rev.Short(), rev.Subject, m.untold)
		return m, bisect.Skip, nil
	}
	out := bisect.Good
	if (bs.o.Measure.record == recordInstructions && m.change > bs.threshold()) || m.regressed {
		out = bisect.Bad
	}
	fmt.Fprintf(w, "step: %s %s: %s: %s\n", rev.Short(), rev.Subject, bs.describe(m), out)
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

// plan is the plan of the bridge at rev, its artifact at out.
func (bs *bisector) plan(rev build.Revision, out string) (session.Plan, error) {
	b, m := bs.o.Build, bs.o.Measure
	b.bridge, m.out = bs.name+"@"+rev.Commit, out
	p, err := newPlan(artifact.ProgramBridge, b, m, bs.cfg)
	p.Builder = bs.o.Builder
	return p, err
}

// measure measures rev against GOOD by the metric.
func (bs *bisector) measure(rev build.Revision, step string) (measured, error) {
	if bs.o.Measure.record == recordInstructions {
		v, err := bs.instructions(rev, step)
		return measured{change: v/bs.goodIPO - 1, base: bs.goodIPO, cur: v}, err
	}
	var jobs []*runner.Job
	for i, r := range []build.Revision{bs.good, rev} {
		p, err := bs.plan(r, filepath.Join(bs.dir, fmt.Sprintf("%s-%c-%s.json", step, 'a'+i, r.Short())))
		if err != nil {
			return measured{}, err
		}
		jobs = append(jobs, p.Job(bs.t, bs.log))
	}
	gopts := bs.gopts
	var seq *session.Sequential
	if bs.o.Budget > 0 {
		seq = session.NewSequential(gopts, bs.o.Budget)
	}
	arts, files, err := session.Run(bs.o.ctx, jobs, bs.log, seq)
	if err != nil {
		return measured{}, err
	}
	if seq != nil {
		gopts = seq.Judged()
		fmt.Fprintln(bs.log, seq.Note().Text)
	}
	res, err := analysis.JudgePaired(arts[0], arts[1], files[0], files[1], gopts)
	if err != nil {
		return measured{}, err
	}
	for _, c := range res.Cases {
		if c.Case == bs.caseN {
			m := measured{change: c.Change, low: c.Low, high: c.High, base: c.Baseline, cur: c.Current,
				regressed: c.Verdict == analysis.Regressed}
			if c.Verdict == analysis.Unjudged || c.Verdict == analysis.Undecided {
				m.untold = string(c.Verdict) + ": " + c.Note
			}
			return m, nil
		}
	}
	var why []string
	for _, w := range res.Notes {
		why = append(why, w.String())
	}
	return measured{}, fmt.Errorf("%s: no paired comparison of %s (%s)", files[1], bs.caseN, strings.Join(why, "; "))
}

// instructions counts CASE's instructions per op of the bridge at rev.
func (bs *bisector) instructions(rev build.Revision, step string) (float64, error) {
	p, err := bs.plan(rev, filepath.Join(bs.dir, fmt.Sprintf("%s-%s.json", step, rev.Short())))
	if err != nil {
		return 0, err
	}
	arts, files, err := session.Run(bs.o.ctx, []*runner.Job{p.Job(bs.t, bs.log)}, bs.log, nil)
	if err != nil {
		return 0, err
	}
	c := arts[0].Case(bs.caseN)
	if c == nil || c.InstructionsPerOp == nil || *c.InstructionsPerOp <= 0 {
		return 0, fmt.Errorf("%s: no instruction count of %s", files[0], bs.caseN)
	}
	return *c.InstructionsPerOp, nil
}

// describe says what a step measured.
func (bs *bisector) describe(m measured) string {
	if bs.o.Measure.record == recordInstructions {
		return fmt.Sprintf("%+.2f%% instructions/op (%.0f -> %.0f)", 100*m.change, m.base, m.cur)
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%] ×ref (%.3g -> %.3g)", 100*m.change, 100*m.low, 100*m.high, m.base, m.cur)
}

// pct writes a share as a percentage: 0.05 -> 5%.
func pct(v float64) string { return fmt.Sprintf("%g%%", 100*v) }
