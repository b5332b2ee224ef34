package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/gate"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/stats"
)

// Exit statuses of gate and compare --gate: 0 when nothing regressed, exitRegressed on a regression, exitUnjudged
// when a comparison judged nothing (and nothing regressed), 1 on an error.
const (
	exitRegressed = 3
	exitUnjudged  = 4
)

// gateOptions are gate's: the two sides, the thresholds, and for --confirm a way to open the current side's target.
type gateOptions struct {
	IO         *IOStreams
	OpenTarget session.OpenFunc
	Builder    session.BuildFunc
	Config     configFunc
	ctx        context.Context

	Baseline, Current string
	Format            string
	Confirm           bool
	Judged            string // --metric: what gate judges (analysis.Options.Metric)
	ConfigFile        string
	Thresholds        thresholdFlags
	AllowMissing      bool
	AcrossOrigins     bool
	AllowUnjudged     bool
	History           string
}

// thresholdFlags are --alpha and --min-effect, of gate and compare.
type thresholdFlags struct {
	alpha, minEffect       float64
	alphaSet, minEffectSet bool
}

// register adds --alpha and --min-effect to f; test names the test whose significance level --alpha sets.
func (th *thresholdFlags) register(f *pflag.FlagSet, test string) {
	f.Float64Var(&th.alpha, "alpha", 0, fmt.Sprintf("significance level of %s, strictly between 0 and 1 (default: the config's, else %v)", test, stats.DefaultAlpha))
	f.Float64Var(&th.minEffect, "min-effect", 0, "least relative change that counts, 0.10 for 10% (default: the config's, else 0.10)")
}

func (th *thresholdFlags) changed(f *pflag.FlagSet) {
	th.alphaSet, th.minEffectSet = f.Changed("alpha"), f.Changed("min-effect")
}

// newCmdGate is `bench-bridge gate BASELINE CURRENT`.
func newCmdGate(f *Factory, runF func(*gateOptions) error) *cobra.Command {
	o := &gateOptions{IO: f.IO, OpenTarget: f.OpenTarget, Builder: f.Builder, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "gate BASELINE CURRENT",
		Short: "Fail (exit 3) when CURRENT regressed against BASELINE: artifacts, or directories of them matched by target and program",
		Long: `gate compares each case's ratio to ref_js_loop in CURRENT with BASELINE. With --metric time (the default) a
case regresses only when the change is significant (Mann-Whitney U over the processes' ratios to ref_js_loop) and larger
than the minimum effect; with --metric instructions (artifacts measured with --metric instructions) when its
instructions per op, over ref_js_loop's, grew by more than the threshold; with --metric allocations when its
allocations per op (the memory pass's exact counts) grew by more than gate.allocations_threshold (default 0). The config's [gate] section sets the
thresholds, per-case overrides and absolute guards (docs/gate.md).

Exit status: 0 when nothing regressed, 3 on a regression, 4 when a comparison could judge no case (the two come
from different devices or builds, or have no case in common: the report says what would judge them;
--allow-unjudged makes that 0), 1 on an error.`,
		Example: `  bench-bridge gate docs/reports/bench/linux.json out/linux.json
  bench-bridge gate --confirm --format markdown docs/reports/bench/nightly out/nightly`,
		Args: cobra.ExactArgs(2),
		RunE: runCmd(o, runF, gateRun, func(cmd *cobra.Command, args []string) error {
			o.ctx, o.Baseline, o.Current = cmd.Context(), args[0], args[1]
			o.Thresholds.changed(cmd.Flags())
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Format, "format", "text", "output format: "+strings.Join(gate.Formats, ", "))
	fl.BoolVar(&o.Confirm, "confirm", false, "rerun the flagged cases on the current artifact's target before failing; fail only when the rerun regresses too")
	fl.StringVar(&o.Judged, "metric", "", "time, instructions or allocations (default: the config's gate.metric, else time)")
	o.Thresholds.register(fl, "the U test")
	fl.BoolVar(&o.AllowMissing, "allow-missing", false, "let a case measured on one side only pass (by default it fails: it is not guarded)")
	fl.BoolVar(&o.AllowUnjudged, "allow-unjudged", false, "let a comparison that could judge no case pass (by default it exits 4: it guarded nothing)")
	fl.BoolVar(&o.AcrossOrigins, "across-origins", false, "judge by time across devices, compilers and QuickJS builds (by default withheld: ×ref moves between them)")
	fl.StringVar(&o.History, "history", "", "a history store (docs/history.md): a case whose device's noise hides the minimum effect is \"cannot see\", not \"same\"")
	registerConfigFlag(fl, &o.ConfigFile)
	return cmd
}

// regressionError fails the command with exitRegressed.
type regressionError struct{ msg string }

func (e regressionError) Error() string { return e.msg }
func (e regressionError) Unwrap() error { return exitCode(exitRegressed) }

// unjudgedError fails the command with exitUnjudged.
type unjudgedError struct{ msg string }

func (e unjudgedError) Error() string { return e.msg }
func (e unjudgedError) Unwrap() error { return exitCode(exitUnjudged) }

// gateOutcome is the error that ends the command for the outcome the analysis decided over a gate's report
// (analysis.Results.Outcome): regressionError when it regressed, unjudgedError when it judged nothing, else nil.
func gateOutcome(report *gate.Report) error {
	g := report.Gate()
	switch g.Outcome() {
	case analysis.GateRegressed:
		return regressionError{fmt.Sprintf("regression: %s", strings.Join(g.Regressions(), ", "))}
	case analysis.GateJudgedNothing:
		return unjudgedError{fmt.Sprintf("judged nothing in %s: not a pass (--allow-unjudged lets it pass)", strings.Join(g.Unjudged(), ", "))}
	case analysis.GateUndecided:
		return unjudgedError{fmt.Sprintf("undecided: %s: not a pass (a longer --budget or a larger --min-effect would tell)", strings.Join(g.Undecided(), ", "))}
	}
	return nil
}

func gateRun(o *gateOptions) error {
	basePath, curPath := o.Baseline, o.Current
	if !slices.Contains(gate.Formats, o.Format) {
		return fmt.Errorf("--format %q: want one of %s", o.Format, strings.Join(gate.Formats, ", "))
	}
	cfg, opts, err := configThresholds(o.Config, o.ConfigFile, o.Thresholds)
	if err != nil {
		return err
	}
	if o.Judged != "" {
		opts.Metric = o.Judged
	}
	if !slices.Contains(analysis.Metrics, opts.Metric) {
		return fmt.Errorf("--metric %q: want time, instructions or allocations", opts.Metric)
	}
	opts.AllowMissing, opts.AcrossOrigins = o.AllowMissing, o.AcrossOrigins
	var noise *analysis.History
	if o.History != "" {
		if noise, err = analysis.LoadHistory(o.ctx, o.History, false); err != nil {
			return fmt.Errorf("--history: %w", err)
		}
	}
	var confirm func(*analysis.Result, analysis.Pair, analysis.Options) error
	if o.Confirm {
		rerun := session.Rerun{Open: o.OpenTarget, Config: cfg, Builder: o.Builder, Log: o.IO.ErrOut}
		confirm = func(res *analysis.Result, p analysis.Pair, opts analysis.Options) error {
			return rerun.Confirm(o.ctx, res, p, opts)
		}
	}
	report, err := gate.Judge(basePath, curPath, opts, o.AllowUnjudged, noise, confirm)
	if err != nil {
		return err
	}
	if err := gate.Render(o.IO.Out, report, o.Format); err != nil {
		return err
	}
	return gateOutcome(report)
}
