package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/gate"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/stats"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Exit statuses of gate: 0 when nothing regressed, exitRegressed on a regression, 1 on an error.
const exitRegressed = 3

// gateOptions are the flags of gate.
type gateOptions struct {
	format     string
	confirm    bool
	metric     string
	alpha      float64
	minEffect  float64
	configFile string
	stdout     io.Writer
	stderr     io.Writer
}

func newGateCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &gateOptions{stdout: stdout, stderr: stderr}
	cmd := &cobra.Command{
		Use:   "gate BASELINE CURRENT",
		Short: "Fail (exit 3) when CURRENT regressed against BASELINE: artifacts, or directories of them matched by target and program",
		Long: `gate compares each case's ratio to ref_js_loop in CURRENT with BASELINE. With --metric time (the default) a
case regresses only when the change is significant (Mann-Whitney U on the ref-normalised samples) and larger
than the minimum effect; with --metric instructions (artifacts measured with --metric instructions) when its
instructions per op, over ref_js_loop's, grew by more than the threshold. The config's [gate] section sets the
thresholds, per-case overrides and absolute guards (docs/gate.md).

Exit status: 0 when nothing regressed, 3 on a regression, 1 on an error.`,
		Example: `  bench-bridge gate docs/reports/bench/linux.json out/linux.json
  bench-bridge gate --confirm --format markdown docs/reports/bench/nightly out/nightly`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return gateRun(cmd.Context(), cmd, o, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "text", "output format: "+strings.Join(gate.Formats, ", "))
	f.BoolVar(&o.confirm, "confirm", false, "rerun the flagged cases on the current artifact's target before failing; fail only when the rerun regresses too")
	f.StringVar(&o.metric, "metric", "", "time or instructions (default: the config's gate.metric, else time)")
	f.Float64Var(&o.alpha, "alpha", 0, fmt.Sprintf("significance level of the U test, strictly between 0 and 1 (default: the config's, else %v)", stats.DefaultAlpha))
	f.Float64Var(&o.minEffect, "min-effect", 0, "least relative change that counts, 0.10 for 10% (default: the config's, else 0.10)")
	f.StringVar(&o.configFile, "config", "", "config file (default ./"+config.DefaultFile+" when it exists)")
	return cmd
}

// regressionError fails the command with exitRegressed.
type regressionError struct{ msg string }

func (e regressionError) Error() string { return e.msg }
func (e regressionError) Unwrap() error { return exitCode(exitRegressed) }

func gateRun(ctx context.Context, cmd *cobra.Command, o *gateOptions, basePath, curPath string) error {
	if !slices.Contains(gate.Formats, o.format) {
		return fmt.Errorf("--format %q: want one of %s", o.format, strings.Join(gate.Formats, ", "))
	}
	cfg, err := config.Load(o.configFile)
	if err != nil {
		return err
	}
	opts := gate.OptionsFrom(cfg.Gate)
	if cmd.Flags().Changed("metric") {
		opts.Metric = o.metric
	}
	if opts.Metric != gate.Time && opts.Metric != gate.Instructions {
		return fmt.Errorf("--metric %q: want time or instructions", opts.Metric)
	}
	// NaN and Inf parse as floats; either would switch the gate off, so each flag is checked for range and finiteness.
	if cmd.Flags().Changed("alpha") {
		if err := stats.CheckAlpha(o.alpha); err != nil {
			return fmt.Errorf("--alpha %v: %w", o.alpha, err)
		}
		opts.Alpha = o.alpha
	}
	if cmd.Flags().Changed("min-effect") {
		if err := stats.CheckEffect(o.minEffect); err != nil {
			return fmt.Errorf("--min-effect %v: %w", o.minEffect, err)
		}
		opts.MinEffect = o.minEffect
	}
	baselines, err := gate.Load(basePath)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	current, err := gate.Load(curPath)
	if err != nil {
		return fmt.Errorf("current: %w", err)
	}
	pairs, notes := gate.Match(baselines, current)
	if len(pairs) == 0 {
		return fmt.Errorf("nothing to gate: no current artifact in %s matches a baseline in %s by target, program and codec", curPath, basePath)
	}
	report := &gate.Report{Notes: notes}
	if report.Notes == nil {
		report.Notes = []string{}
	}
	for _, p := range pairs {
		res, err := gate.Compare(p.Baseline.Artifact, p.Current.Artifact, p.Baseline.File, p.Current.File, opts)
		if err != nil {
			return err
		}
		if o.confirm && len(res.Flagged()) > 0 {
			if err := confirmResult(ctx, o, cfg, res, p, opts); err != nil {
				return fmt.Errorf("--confirm: %w", err)
			}
		}
		report.Results = append(report.Results, res)
	}
	if err := gate.Render(o.stdout, report, o.format); err != nil {
		return err
	}
	if reg := report.Regressions(); len(reg) > 0 {
		return regressionError{fmt.Sprintf("regression: %s", strings.Join(reg, ", "))}
	}
	return nil
}

// confirmResult reruns the flagged cases of res with the current artifact's program, target and settings, and
// keeps only the regressions the rerun shows too.
func confirmResult(ctx context.Context, o *gateOptions, cfg *config.Config, res *gate.Result, p gate.Pair, opts gate.Options) error {
	if opts.Metric == gate.Instructions {
		res.Notes = append(res.Notes, "--confirm: instruction counts repeat exactly, there is nothing to rerun")
		return nil
	}
	cur := p.Current.Artifact
	dir, err := os.MkdirTemp("", "bench-bridge-confirm-")
	if err != nil {
		return err
	}
	out := filepath.Join(dir, filepath.Base(p.Current.File))
	job, err := rerunJob(ctx, o, cfg, cur, append([]string{cases.RefCase}, res.Flagged()...), out)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.stderr, "gate: %s: rerunning %s to confirm\n", res.Label, strings.Join(res.Flagged(), ", "))
	rerun, err := job.Run(ctx)
	if err != nil {
		return err
	}
	gate.Confirm(res, p.Baseline.Artifact, rerun, out, opts)
	return nil
}

// rerunJob is a job that measures names with the program, target, build options and settings cur was made with.
func rerunJob(ctx context.Context, o *gateOptions, cfg *config.Config, cur *artifact.Artifact, names []string, out string) (*runner.Job, error) {
	t, err := targets.Open(ctx, cur.Target, cfg.Specs(), targets.Overrides{Log: o.stderr})
	if err != nil {
		return nil, err
	}
	opts := runner.DefaultOptions()
	opts.Cases, opts.Progress = names, o.stderr
	if s := cur.Settings; s.Samples > 0 && s.MinTimeNs > 0 {
		opts.Samples, opts.MinTime, opts.Warmup = s.Samples, time.Duration(s.MinTimeNs), time.Duration(s.WarmupNs)
	}
	job := &runner.Job{Target: t, Kind: cur.Program, Codec: cur.Codec, Options: opts, Out: out, Log: o.stderr,
		Defines: cur.Settings.Defines}
	if cfg.QuickJS.Src != "" {
		job.QuickJSSrc = cfg.Resolve(cfg.QuickJS.Src)
	}
	if _, declared := cfg.Bridges[cur.Codec]; declared && cur.Program == artifact.ProgramBridge && !slices.Contains(build.Codecs, cur.Codec) {
		b, err := cfg.Bridge(cur.Codec) // a bridge with problems in the config stops only this
		if err != nil {
			return nil, err
		}
		job.User = &runner.UserBridge{Name: cur.Codec, Dir: cfg.Dir(), Build: b.Build, Binary: b.Binary}
	}
	return job, nil
}
