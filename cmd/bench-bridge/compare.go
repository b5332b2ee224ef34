package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/gate"
	"github.com/bench-bridge/bench-bridge/reports"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/stats"
	"github.com/bench-bridge/bench-bridge/targets"
)

// compareOptions are compare's: the target and programs, the measuring flags and the gate's.
type compareOptions struct {
	IO         *IOStreams
	OpenTarget openFunc
	Builder    buildFunc
	ctx        context.Context

	Target     string
	Programs   []string
	ConfigFile string
	Build      buildFlags
	Measure    measureFlags
	Device     targets.Overrides
	Gate       bool
	Thresholds thresholdFlags
	Format     string
	// Refused are the measuring flags given that compare takes per program instead.
	Refused []string
}

// newCmdCompare is `bench-bridge compare TARGET A B [C...]`.
func newCmdCompare(f *Factory, runF func(*compareOptions) error) *cobra.Command {
	o := &compareOptions{IO: f.IO, OpenTarget: f.OpenTarget, Builder: f.Builder}
	cmd := &cobra.Command{
		Use:   "compare TARGET A B [C...]",
		Short: "Measure two or more programs on one target in one session, their processes alternating, and test each against the first",
		Long: `compare builds every program, then runs them as --runs rounds of one process each, alternating
(A B, B A, A B, ...), every program of a round in the same case order: what the machine does at any moment falls
on all of them alike. It writes one artifact per program, marked as one session, prints them side by side and,
for every program after the first, a paired test over the process pairs of each case's ratio to ref_js_loop.
With --gate it exits 3 when a program regressed against the first by the gate's rules (docs/gate.md).

A program is floor, a codec of the reference bridge (json, fast, binary) or a bridge of the config, with
options after a colon: json:slowdown=0.10 is the json bridge adding busy work worth 10% of each crossing,
calibrated on the device at start-up (the same binary as json).

--runs (default ` + strconv.Itoa(compareRounds) + `) is the number of rounds. The artifacts go to ` + DefaultOutDir + `/compare-TARGET
unless --out names another directory.`,
		Example: `  bench-bridge compare linux json fast binary
  bench-bridge compare linux json json:slowdown=0.10 --cases script_to_host_scalar --gate`,
		Args: cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx, o.Target, o.Programs = cmd.Context(), args[0], args[1:]
			fl := cmd.Flags()
			o.Measure.changed(fl)
			o.Build.changed(fl)
			o.Thresholds.changed(fl)
			o.Refused = nil
			for _, name := range []string{"slowdown", "slowdown-steps", "metric"} {
				if fl.Changed(name) {
					o.Refused = append(o.Refused, name)
				}
			}
			if runF != nil {
				return runF(o)
			}
			return compareRun(o)
		},
	}
	registerMeasuring(cmd, &o.Measure, &o.Build, &o.ConfigFile, &o.Device, false)
	fl := cmd.Flags()
	// More rounds than a run's processes: the paired test gains a pair per round, and a compare measures few cases.
	o.Measure.runs = compareRounds
	fl.Lookup("runs").DefValue = strconv.Itoa(compareRounds)
	fl.Lookup("runs").Usage = "rounds: processes of each program, alternating A B, B A, ..."
	fl.Lookup("out").Usage = "directory for the artifacts, one per program (default " + DefaultOutDir + "/compare-TARGET)"
	fl.BoolVar(&o.Gate, "gate", false, "exit 3 when a program regressed against the first")
	fl.Float64Var(&o.Thresholds.alpha, "alpha", 0, "significance level of the paired test (default: the config's, else 0.05)")
	fl.Float64Var(&o.Thresholds.minEffect, "min-effect", 0, "least relative change that counts, 0.10 for 10% (default: the config's, else 0.10)")
	fl.StringVar(&o.Format, "format", "text", "format of the paired comparison: "+strings.Join(gate.Formats, ", "))
	return cmd
}

// compareRounds is compare's default --runs.
const compareRounds = 40

// programSpec is one program of compare: floor, a codec of the reference bridge or a config bridge, and options.
type programSpec struct {
	arg      string
	kind     string
	codec    string
	bridge   string
	slowdown float64
}

// parseProgram reads NAME[:slowdown=SHARE].
func parseProgram(arg string, cfg *config.Config) (programSpec, error) {
	name, opts, _ := strings.Cut(arg, ":")
	p := programSpec{arg: arg}
	switch {
	case name == artifact.ProgramFloor:
		p.kind = artifact.ProgramFloor
	case slices.Contains(build.Codecs, name):
		p.kind, p.codec = artifact.ProgramBridge, name
	case cfg.Bridges[name].Build != "" || cfg.Bridges[name].Binary != "":
		p.kind, p.bridge = artifact.ProgramBridge, name
	default:
		known := append([]string{artifact.ProgramFloor}, build.Codecs...)
		for b := range cfg.Bridges {
			known = append(known, b)
		}
		sort.Strings(known[1+len(build.Codecs):])
		return p, fmt.Errorf("program %q: want one of %s (a bridge from the config, or floor or a codec), with options like :slowdown=0.10",
			arg, strings.Join(known, ", "))
	}
	for _, opt := range strings.Split(opts, ",") {
		if opt == "" {
			continue
		}
		key, val, _ := strings.Cut(opt, "=")
		if key != "slowdown" {
			return p, fmt.Errorf("program %q: unknown option %q (have slowdown=SHARE)", arg, key)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || !(v >= 0 && v <= 10) {
			return p, fmt.Errorf("program %q: slowdown=%s: want a share between 0 and 10, like 0.10", arg, val)
		}
		p.slowdown = v
	}
	return p, nil
}

// fileName is the artifact's name in compare's directory: the program's letter and its usual name.
func (p programSpec) fileName(i int, target string) string {
	codec := p.codec
	if p.bridge != "" {
		codec = p.bridge
	}
	name := strings.TrimSuffix(defaultName(target, p.kind, codec, ""), ".json")
	if p.slowdown > 0 {
		name += "-slowdown" + strconv.FormatFloat(p.slowdown, 'g', -1, 64)
	}
	return fmt.Sprintf("%c-%s.json", 'a'+i, name)
}

func compareRun(o *compareOptions) error {
	if !slices.Contains(gate.Formats, o.Format) {
		return fmt.Errorf("--format %q: want one of %s", o.Format, strings.Join(gate.Formats, ", "))
	}
	if len(o.Refused) > 0 {
		return fmt.Errorf("--%s does not apply to compare: give each program its own options (json:slowdown=0.10)", o.Refused[0])
	}
	cfg, err := config.Load(o.ConfigFile)
	if err != nil {
		return err
	}
	gopts, err := gateThresholds(cfg, o.Thresholds)
	if err != nil {
		return err
	}
	specs := make([]programSpec, len(o.Programs))
	plans := make([]plan, len(o.Programs))
	for i, a := range o.Programs {
		if specs[i], err = parseProgram(a, cfg); err != nil {
			return err
		}
		b, m := o.Build, o.Measure
		b.codec, b.bridge, m.slowdown = specs[i].codec, specs[i].bridge, specs[i].slowdown
		if plans[i], err = newPlan(specs[i].kind, b, m, cfg); err != nil {
			return err
		}
		plans[i].builder = o.Builder
	}
	disp := newDisplay(o.IO.ErrOut, o.IO.IsStderrTTY(), o.IO.ColorEnabled(), o.Measure.quiet, o.Measure.verbose)
	dev := o.Device
	dev.Log = disp
	t, err := o.OpenTarget(o.ctx, o.Target, cfg.Specs(), dev)
	if err != nil {
		return err
	}
	defer t.Close()
	dir := o.Measure.out
	if dir == "" {
		dir = filepath.Join(DefaultOutDir, "compare-"+t.Name())
	}
	jobs := make([]*runner.Job, len(plans))
	for i, p := range plans {
		p.out = filepath.Join(dir, specs[i].fileName(i, t.Name()))
		jobs[i] = p.job(t, disp)
		label := fmt.Sprintf("%c %s", 'a'+i, strings.TrimSuffix(filepath.Base(p.out)[2:], ".json"))
		jobs[i].Options.OnEvent = disp.track(label, jobs[i].Options.Runs*len(jobs[i].Options.Cases))
	}
	held, release, err := holdDevice(o.Measure.wait, disp)(o.ctx, t)
	if err != nil {
		return err
	}
	arts, files, runErr := runSession(held, jobs, disp)
	runErr = errors.Join(runErr, release())
	if len(arts) == 0 {
		return runErr
	}
	table := reports.Build(arts, files)
	if len(arts) < len(jobs) {
		// A program's artifact is missing: there is nothing to pair it with.
		return errors.Join(runErr, table.Document().Render(o.IO.Out, "text"))
	}
	report := &gate.Report{Notes: []string{}}
	for i := 1; i < len(arts); i++ {
		res, err := gate.JudgePaired(arts[0], arts[i], files[0], files[i], gopts)
		if err != nil {
			return errors.Join(runErr, err)
		}
		report.Results = append(report.Results, res)
	}
	if err := renderCompare(o.IO.Out, table, report, o.Format); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if reg := report.Regressions(); o.Gate && len(reg) > 0 {
		return regressionError{fmt.Sprintf("regression: %s", strings.Join(reg, ", "))}
	}
	return nil
}

// renderCompare writes the programs' table and their paired comparisons as one document, or for json one object
// holding both.
func renderCompare(w io.Writer, table *reports.Table, report *gate.Report, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Table  *reports.Table `json:"table"`
			Paired any            `json:"paired"`
		}{table, report.JSON()})
	}
	return reports.Join(table.Document(), report.Document()).Render(w, format)
}

// runSession measures jobs in one session and returns the artifacts it wrote, with their files, and its error.
func runSession(ctx context.Context, jobs []*runner.Job, log io.Writer) ([]*artifact.Artifact, []string, error) {
	s, err := runner.NewSession(jobs, log)
	if err != nil {
		return nil, nil, err
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

// gateThresholds are the gate's options from the config, with --alpha and --min-effect when given, checked.
func gateThresholds(cfg *config.Config, th thresholdFlags) (gate.Options, error) {
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
