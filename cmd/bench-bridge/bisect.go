package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/bisect"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// bisectOptions are bisect's: the range, the bridge and case, how to measure and what counts as slower.
type bisectOptions struct {
	IO         *IOStreams
	OpenTarget session.OpenFunc
	Builder    session.BuildFunc
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
		RunE: runCmd(o, runF, bisectRun, func(cmd *cobra.Command, args []string) error {
			o.ctx, o.Good, o.Bad = cmd.Context(), args[0], args[1]
			fl := cmd.Flags()
			o.Measure.changed(fl)
			o.Build.changed(fl)
			o.runsSet, o.budgetSet = fl.Changed("runs"), fl.Changed("budget")
			return nil
		}),
	}
	registerMeasuring(cmd, &o.Measure, &o.Build, &o.ConfigFile, o.Config, &o.Device, true)
	fl := cmd.Flags()
	fl.StringVar(&o.Target, "target", localName(), "the target to measure on")
	fl.DurationVar(&o.Budget, "budget", session.CompareBudget, "by time: each step's rounds stop as soon as the answer is clear, at the latest after this long (0: the --runs rounds, fixed; compare --budget)")
	fl.Float64Var(&o.Threshold, "threshold", 0, "least relative slowdown that counts, 0.05 for 5% (default: the gate's for the metric)")
	fl.Lookup("out").Usage = "directory for the artifacts of the steps (default " + DefaultOutDir + "/bisect-TARGET)"
	fl.Lookup("runs").Usage = "by time: rounds of each step's session, GOOD and the commit alternating: " + session.RoundsRule + "; by instructions: processes (1 unless given)"
	fl.Lookup("runs").DefValue = "0"
	return cmd
}

func bisectRun(o *bisectOptions) error {
	c, err := newCommits(o)
	if err != nil {
		return err
	}
	bad, commits, err := c.Resolve(o.ctx)
	if err != nil {
		return err
	}
	t, err := o.OpenTarget(o.ctx, o.Target, c.Config.Specs(), o.Device)
	if err != nil {
		return err
	}
	defer t.Close()
	c.Target = t
	if c.Dir = o.Measure.out; c.Dir == "" {
		c.Dir = filepath.Join(DefaultOutDir, "bisect-"+t.Name())
	}
	return c.Run(o.ctx, bad, commits)
}

// newCommits checks bisect's flags against the config, before anything is built: one bridge of the config, one
// case, the rounds and the threshold.
func newCommits(o *bisectOptions) (*bisect.Commits, error) {
	cfg, err := o.Config(o.ConfigFile)
	if err != nil {
		return nil, err
	}
	if o.Build.Bridge == "" || strings.Contains(o.Build.Bridge, "@") {
		return nil, fmt.Errorf("--bridge NAME: bisect needs a bridge of the config (without @REV: GOOD and BAD are the revisions)")
	}
	names := strings.Split(o.Measure.Cases, ",")
	if len(names) != 1 || names[0] == "" || strings.HasPrefix(names[0], "ref_js_loop") {
		return nil, fmt.Errorf("--cases %q: bisect follows one case (not ref_js_loop), like --cases script_to_host_scalar", o.Measure.Cases)
	}
	instructions := o.Measure.Record == session.RecordInstructions
	if o.Budget, o.Measure.Runs, err = session.BisectRounds(instructions, o.Budget, o.budgetSet, o.Measure.Runs, o.runsSet); err != nil {
		return nil, err
	}
	c := &bisect.Commits{Config: cfg, Bridge: o.Build.Bridge, Case: names[0], Good: o.Good, Bad: o.Bad, Instructions: instructions,
		Budget: o.Budget, Out: o.IO.Out, Log: o.IO.ErrOut, TargetName: o.Target, Options: cfg.Gate.Options()}
	switch {
	case o.Threshold < 0 || o.Threshold != o.Threshold || o.Threshold > 10:
		return nil, fmt.Errorf("--threshold %v: want a share between 0 and 10, like 0.05", o.Threshold)
	case o.Threshold > 0:
		c.Options.MinEffect, c.Options.InstructionsThreshold = o.Threshold, o.Threshold
	}
	if !instructions {
		warnTooFewRounds(o.IO.ErrOut, o.Measure.Runs, o.Budget > 0, c.Options)
	}
	// The bridge, the case and the flags are checked before anything is built: its plan at HEAD, whose program
	// each step builds at its commit.
	b := o.Build
	b.Bridge = c.Bridge + "@HEAD"
	c.Plan, err = newPlan(artifact.ProgramBridge, b, o.Measure, cfg)
	c.Plan.Builder = o.Builder
	return c, err
}
