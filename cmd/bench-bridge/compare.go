package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/gate"
	"github.com/bench-bridge/bench-bridge/reports"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/stats"
	"github.com/bench-bridge/bench-bridge/targets"
)

// compareOptions are compare's: the target and programs, the measuring flags and the gate's.
type compareOptions struct {
	IO         *IOStreams
	OpenTarget session.OpenFunc
	Builder    session.BuildFunc
	Config     configFunc
	ctx        context.Context

	Target     string
	Programs   []string
	ConfigFile string
	Build      buildFlags
	Measure    measureFlags
	Device     targets.Overrides
	Gate       bool
	// AllowUnjudged lets --gate pass when a program could judge no case against the first.
	AllowUnjudged bool
	Thresholds    thresholdFlags
	Format        string
	// Budget, when above 0, makes the rounds sequential: they stop when every case's answer is clear, at the latest
	// after Budget (and --runs rounds). It is session.CompareBudget unless --budget or --runs says otherwise.
	Budget    time.Duration
	budgetSet bool
	runsSet   bool
	// Report, when set, is where a markdown report fit for a pull-request comment goes (also $GITHUB_STEP_SUMMARY).
	Report string
	// Refused are the measuring flags given that compare takes per program instead.
	Refused []string
}

// compareLong is compare's help.
var compareLong = `compare builds every program, then runs them as --runs rounds of one process each, alternating
(A B, B A, A B, ...), every program of a round in the same case order: what the machine does at any moment falls
on all of them alike. It writes one artifact per program, marked as one session, prints them side by side and,
for every program after the first, a paired test over the process pairs of each case's ratio to ref_js_loop.
With --gate it exits 3 when a program regressed against the first by the gate's rules (docs/gate.md), and 4
when a program could judge no case against it (no case in common, too few rounds; --allow-unjudged makes that
0) or a case was left undecided within --budget.

A program is floor (floor:ENGINE another engine's), a codec of the reference bridge (json, fast, binary) or a
bridge of the config, with options after a colon: json:slowdown=0.10 adds busy work worth 10% of each crossing,
calibrated on the device (the same binary as json); two engines' floors are measured, not judged (docs/engines.md).
A bridge of the config can be built at a revision: NAME@REV (a commit, tag or branch) or NAME@merge-base:BRANCH
(where HEAD left BRANCH: a pull request's base), each in a worktree of its own, cached by commit (docs/bridge.md).

The rounds are sequential: compare looks at the pairs as they come and stops as soon as every case's answer is
clear (a change of at least --min-effect, or none that large), at the latest after --budget (default ` + session.CompareBudget.String() + `),
with error rates that hold at every look (docs/gate.md); a case still unclear then is "undecided", and --gate
exits 4. --runs: ` + session.RoundsRule + `. Too few rounds to reach --alpha
are said at once, before anything is built, with how many would. The artifacts go to ` + DefaultOutDir + `/compare-TARGET
unless --out names another directory.`

// newCmdCompare is `bench-bridge compare TARGET A B [C...]`.
func newCmdCompare(f *Factory, runF func(*compareOptions) error) *cobra.Command {
	o := &compareOptions{IO: f.IO, OpenTarget: f.OpenTarget, Builder: f.Builder, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "compare TARGET A B [C...]",
		Short: "Measure two or more programs on one target in one session, their processes alternating, and test each against the first",
		Long:  compareLong,
		Example: `  bench-bridge compare linux json fast binary
  bench-bridge compare linux json json:slowdown=0.10 --cases script_to_host_scalar --gate`,
		Args: cobra.MinimumNArgs(3),
		RunE: runCmd(o, runF, compareRun, func(cmd *cobra.Command, args []string) error {
			o.ctx, o.Target, o.Programs = cmd.Context(), args[0], args[1:]
			fl := cmd.Flags()
			o.Measure.changed(fl)
			o.Build.changed(fl)
			o.Thresholds.changed(fl)
			o.runsSet, o.budgetSet = fl.Changed("runs"), fl.Changed("budget")
			o.Refused = nil
			for _, name := range []string{"slowdown", "slowdown-steps", "metric"} {
				if fl.Changed(name) {
					o.Refused = append(o.Refused, name)
				}
			}
			return nil
		}),
	}
	registerMeasuring(cmd, &o.Measure, &o.Build, &o.ConfigFile, o.Config, &o.Device, false)
	fl := cmd.Flags()
	// More rounds than a run's processes: the paired test gains a pair per round, and a compare measures few cases.
	o.Measure.Runs = session.CompareRounds
	fl.Lookup("runs").DefValue = "0"
	fl.Lookup("runs").Usage = "rounds, each a process of every program, alternating A B, B A, ...: " + session.RoundsRule
	fl.Lookup("out").Usage = "directory for the artifacts, one per program (default " + DefaultOutDir + "/compare-TARGET)"
	fl.BoolVar(&o.Gate, "gate", false, "exit 3 when a program regressed against the first, 4 when one judged nothing")
	fl.BoolVar(&o.AllowUnjudged, "allow-unjudged", false, "with --gate, let a program that could judge no case against the first pass")
	o.Thresholds.register(fl, "the paired test")
	fl.StringVar(&o.Format, "format", "text", "format of the paired comparison: "+strings.Join(gate.Formats, ", "))
	fl.StringVar(&o.Report, "report", "", "write a markdown report for a pull-request comment to this file (and append it to $GITHUB_STEP_SUMMARY when set)")
	fl.DurationVar(&o.Budget, "budget", session.CompareBudget, "stop the rounds as soon as every case's answer is clear, at the latest after this long (0: the --runs rounds, fixed)")
	return cmd
}

func compareRun(o *compareOptions) error {
	cfg, gopts, err := o.check()
	if err != nil {
		return err
	}
	args, plans, err := session.ComparePlans(o.Programs, o.Build.Choice, o.Measure.Settings, DefaultOutDir, cfg, o.Builder)
	if err != nil {
		return err
	}
	disp := o.IO.Progress(o.Measure.quiet, o.Measure.verbose)
	dev := o.Device
	dev.Log = disp
	c := session.Comparison{Open: o.OpenTarget, Target: o.Target, Specs: cfg.Specs(), Device: dev, Args: args, Plans: plans,
		Out: o.Measure.out, OutDir: DefaultOutDir, Options: gopts, Budget: o.Budget, Wait: o.Measure.wait, Log: disp, Track: disp.Track}
	m, runErr := c.Run(o.ctx)
	switch {
	case len(m.Loaded) == 0:
		return runErr
	case !m.Complete:
		// A program's artifact is missing: there is nothing to pair it with.
		return errors.Join(runErr, reports.Render(o.IO.Out, analysis.Build(m.Loaded, m.Options, nil), "text"))
	}
	report, err := showSession(o, m.Loaded, m.Options, m.Notes)
	if err != nil {
		return errors.Join(runErr, err)
	}
	if runErr != nil {
		return runErr
	}
	if o.Gate {
		return gateOutcome(report)
	}
	return nil
}

// check checks compare's flags, reads the config and its thresholds, and decides the rounds (session.Rounds), saying at once
// when they are too few to judge anything.
func (o *compareOptions) check() (*config.Config, analysis.Options, error) {
	if !slices.Contains(gate.Formats, o.Format) {
		return nil, analysis.Options{}, fmt.Errorf("--format %q: want one of %s", o.Format, strings.Join(gate.Formats, ", "))
	}
	if len(o.Refused) > 0 {
		return nil, analysis.Options{}, fmt.Errorf("--%s does not apply to compare: give each program its own options (json:slowdown=0.10)", o.Refused[0])
	}
	cfg, gopts, err := configThresholds(o.Config, o.ConfigFile, o.Thresholds)
	if err != nil {
		return nil, gopts, err
	}
	if o.Budget, o.Measure.Runs, err = session.Rounds(o.Budget, o.budgetSet, o.Measure.Runs, o.runsSet); err != nil {
		return nil, gopts, err
	}
	warnTooFewRounds(o.IO.ErrOut, o.Measure.Runs, o.Budget > 0, gopts)
	return cfg, gopts, nil
}

// showSession shows what compare measured in one session: the table of its artifacts, the paired comparisons of
// every program against the first (the table's own: one verdict per pair, wherever it is shown) with the session's
// notes, and the pull-request report when --report asks for it. It returns the comparisons, whose outcome --gate
// ends with.
func showSession(o *compareOptions, loaded []analysis.Loaded, gopts analysis.Options, notes []analysis.Warning) (*gate.Report, error) {
	table := analysis.Build(loaded, gopts, nil)
	report, err := gate.TableReport(table, o.AllowUnjudged)
	if err != nil {
		return nil, err
	}
	report.Notes = append(report.Notes, notes...)
	if err := gate.RenderCompare(o.IO.Out, table, report, o.Format); err != nil {
		return nil, err
	}
	if o.Report != "" {
		if err := report.WritePullRequest(o.Report, table.Columns[0].Label); err != nil {
			return nil, err
		}
	}
	return report, nil
}

// warnTooFewRounds says at once, before anything is built or measured, when a session of this many rounds cannot
// judge anything at the gate's alpha (analysis.TooFewRounds), and how many would.
func warnTooFewRounds(w io.Writer, rounds int, sequential bool, o analysis.Options) {
	if why := analysis.TooFewRounds(rounds, sequential, o); why != "" {
		fmt.Fprintf(w, "bench-bridge: warning: %s\n", why)
	}
}

// configThresholds loads the command's config (file, through load) and its gate thresholds (gateThresholds).
func configThresholds(load configFunc, file string, th thresholdFlags) (*config.Config, analysis.Options, error) {
	cfg, err := load(file)
	if err != nil {
		return nil, analysis.Options{}, err
	}
	opts, err := gateThresholds(cfg, th)
	return cfg, opts, err
}

// gateThresholds are the gate's options from the config, with --alpha and --min-effect when given, checked.
func gateThresholds(cfg *config.Config, th thresholdFlags) (analysis.Options, error) {
	opts := cfg.Gate.Options()
	// NaN and Inf parse as floats; either would switch the gate off, so each flag is checked for range and finiteness.
	if th.alphaSet {
		if err := stats.CheckAlpha(th.alpha); err != nil {
			return opts, fmt.Errorf("--alpha %v: %w", th.alpha, err)
		}
		opts.Alpha = th.alpha
	}
	if th.minEffectSet {
		if err := stats.CheckEffect(th.minEffect); err != nil {
			return opts, fmt.Errorf("--min-effect %v: %w", th.minEffect, err)
		}
		opts.MinEffect = th.minEffect
	}
	return opts, nil
}
