package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/reports"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/targets"
)

// DefaultOutDir is where artifacts go unless --out or the config's out_dir says otherwise: a folder of their own, not
// docs/reports/bench, whose artifacts are committed.
const DefaultOutDir = "out"

// measureOptions are a measuring command's: the program to build, how to measure it, the targets, and what it
// needs from outside (the streams, a way to open a target). The bridge commands, floor and the root share them.
type measureOptions struct {
	IO         *IOStreams
	OpenTarget openFunc
	ListADB    listADBFunc
	Builder    buildFunc
	Config     configFunc
	ctx        context.Context

	Kind       string   // artifact.ProgramBridge or artifact.ProgramFloor
	Engine     string   // the floor's engine (floor --engine); "" for QuickJS
	Targets    []string // the targets' words: names, and ssh [USER@]HOST for a board (resolveTargets)
	ConfigFile string
	Build      buildFlags
	Measure    measureFlags
	Device     targets.Overrides
	All        bool // every device the adb server lists (expandDevices)
}

// newMeasureOptions are the options of a measuring command of kind, with f's dependencies.
func newMeasureOptions(f *Factory, kind string) *measureOptions {
	return &measureOptions{IO: f.IO, OpenTarget: f.OpenTarget, ListADB: f.ListADB, Builder: f.Builder, Config: f.Config, Kind: kind}
}

// register adds the measuring command's flags to cmd; bridge adds the reference bridge's and the config's bridges.
func (o *measureOptions) register(cmd *cobra.Command, bridge bool) {
	registerMeasuring(cmd, &o.Measure, &o.Build, &o.ConfigFile, o.Config, &o.Device, bridge)
	cmd.Flags().BoolVar(&o.All, "all", false, "adb: measure every device the adb server lists, each as a target of its own (TARGET-SERIAL), at once")
}

// registerMeasuring adds every flag of a measuring command and its completions.
func registerMeasuring(cmd *cobra.Command, m *measureFlags, b *buildFlags, configFile *string, load configFunc, dev *targets.Overrides, bridge bool) {
	f := cmd.Flags()
	m.register(f)
	b.register(f, bridge)
	registerConfigFlag(f, configFile)
	registerDeviceFlags(f, dev)
	cmd.ValidArgsFunction = targetCompletion(configFile, load)
	addCaseCompletion(cmd)
}

// runE is the cobra side of a measuring command: the targets from the arguments, what the flags changed, then runF.
func (o *measureOptions) runE(runF func(*measureOptions) error, first ...string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		o.ctx, o.Targets = cmd.Context(), append(slices.Clone(first), args...)
		o.Measure.changed(cmd.Flags())
		o.Build.changed(cmd.Flags())
		if runF != nil {
			return runF(o)
		}
		return measureRun(o)
	}
}

// plan is what every job of a measuring command shares, read-only: checked once, before any target opens.
type plan struct {
	kind    string
	engine  string // the floor's engine; "" for QuickJS
	spec    buildSpec
	builder buildFunc
	options runner.Options
	out     string
	outDir  string
}

// plan checks the flags against the config.
func (o *measureOptions) plan(cfg *config.Config) (plan, error) {
	p, err := newPlan(o.Kind, o.Build, o.Measure, cfg)
	p.builder, p.engine = o.Builder, o.Engine
	return p, err
}

func newPlan(kind string, b buildFlags, m measureFlags, cfg *config.Config) (plan, error) {
	p := plan{kind: kind, out: m.out, outDir: DefaultOutDir}
	var err error
	if p.spec, err = b.resolve(cfg); err != nil {
		return p, err
	}
	if p.options, err = m.options(cfg); err != nil {
		return p, err
	}
	if cfg.Defaults.OutDir != "" {
		p.outDir = cfg.Resolve(cfg.Defaults.OutDir)
	}
	return p, nil
}

// job is the plan for target t, with options and defines of its own: jobs running in parallel share nothing they
// write. It is the one way the commands make a runner.Job: measuring, compare, gate --confirm's rerun (rerunJob) and
// profile.
func (p plan) job(t targets.Target, log io.Writer) *runner.Job {
	opts := p.options
	opts.Cases = slices.Clone(p.options.Cases)
	opts.Progress = log
	out := strings.ReplaceAll(p.out, targetPlaceholder, t.Name())
	if out == "" {
		codec := p.spec.codec
		if u := p.spec.user; u != nil && u.Rev != "" { // not the bridge's linux-mine.json: another program
			codec += "@" + fileRev(u.Rev)
		}
		out = filepath.Join(p.outDir, subsetName(defaultName(t.Name(), p.kind, codec, p.engine), opts.Cases))
	}
	var user *runner.UserBridge
	if p.spec.user != nil {
		u := *p.spec.user
		user = &u
	}
	return &runner.Job{Target: t, Kind: p.kind, Codec: p.spec.codec, QuickJSSrc: p.spec.quickjsSrc, Engine: p.engine, Options: opts,
		Out: out, Log: log, User: user, Defines: slices.Clone(p.spec.defines), Builder: p.builder}
}

// defaultName is the artifact's file name: linux.json, floor-linux.json, floor-jsc-linux.json (another engine's
// floor), linux-fast.json.
func defaultName(target, kind, codec, engine string) string {
	switch {
	case kind == artifact.ProgramFloor && engine != "" && engine != engines.Default:
		return "floor-" + engine + "-" + target + ".json"
	case kind == artifact.ProgramFloor:
		return "floor-" + target + ".json"
	case codec == "" || codec == "json":
		return target + ".json"
	}
	return target + "-" + codec + ".json"
}

// subsetName marks the file name of a run of some of the cases, so that it never overwrites a full run's artifact:
// linux.json becomes linux-subset-1a2b3c4d.json, the hash naming the set of cases.
func subsetName(name string, selected []string) string {
	if len(selected) == len(cases.Catalogue) {
		return name
	}
	sum := sha256.Sum256([]byte(strings.Join(selected, ",")))
	return strings.TrimSuffix(name, ".json") + "-subset-" + hex.EncodeToString(sum[:4]) + ".json"
}

// measureRun runs the program on every named target (every device, where the flags name several: expandDevices),
// one session and one artifact each, at once where they are different machines, each holding its device for its run,
// and shows them side by side. A target that cannot be opened or fails ends alone; the error names each that failed.
// It opens every target and closes every one it opened.
func measureRun(o *measureOptions) error {
	cfg, err := o.Config(o.ConfigFile)
	if err != nil {
		return err
	}
	names, cfg, err := resolveTargets(o.Targets, cfg, o.Device.Host)
	if err != nil {
		return err
	}
	specs := cfg.Specs()
	names, dev, err := expandDevices(o.ctx, names, specs, o.Device, o.All, o.ListADB)
	if err != nil {
		return err
	}
	if err := checkOut(o.Measure.out, names); err != nil {
		return err
	}
	p, err := o.plan(cfg)
	if err != nil {
		return err
	}
	if o.Measure.record != recordInstructions && !o.Measure.quiet {
		// What gate will judge this run by (the nightly's, or a user's) is said before it is measured, not after.
		if why := analysis.TooFewProcesses(p.options.Runs, cfg.Gate.Options()); why != "" {
			fmt.Fprintf(o.IO.ErrOut, "bench-bridge: note: %s\n", why)
		}
	}
	disp := newDisplay(o.IO.ErrOut, o.IO.IsStderrTTY(), o.IO.ColorEnabled(), o.Measure.quiet, o.Measure.verbose)
	dev.Log = disp
	opened, errs := openAll(o.ctx, o.OpenTarget, names, specs, dev)
	defer func() {
		for _, t := range opened {
			if t != nil {
				t.Close()
			}
		}
	}()
	var sessions []*runner.Session
	var of []int // the index in names of each session
	for i, t := range opened {
		if t == nil {
			continue
		}
		job := p.job(t, disp)
		job.Options.OnEvent = disp.track(strings.TrimSuffix(defaultName(t.Name(), job.Kind, job.Codec, job.Engine), ".json"), len(job.Options.Cases))
		s, err := runner.NewSession([]*runner.Job{job}, disp)
		if err != nil {
			return err
		}
		sessions, of = append(sessions, s), append(of, i)
	}
	results, runErrs := runner.RunAll(o.ctx, sessions, holdDevice(o.Measure.wait, disp))
	var arts []*artifact.Artifact
	var files []string
	for k, rs := range results {
		for _, r := range rs {
			if r.Artifact != nil {
				arts, files = append(arts, r.Artifact), append(files, r.File)
			}
		}
		if runErrs[k] != nil {
			errs[of[k]] = fmt.Errorf("%s: %w", names[of[k]], runErrs[k])
		}
	}
	if len(arts) > 0 {
		// The table judges its columns as gate would: by the config's thresholds.
		if err := reports.Render(o.IO.Out, analysis.Build(analysis.LoadedFrom(arts, files), cfg.Gate.Options(), nil), "text"); err != nil {
			return err
		}
	}
	return targetsFailed(names, errs)
}

// newCmdFloor is `bench-bridge floor TARGET...`.
func newCmdFloor(f *Factory, runF func(*measureOptions) error) *cobra.Command {
	o := newMeasureOptions(f, artifact.ProgramFloor)
	measure := o.runE(runF)
	cmd := &cobra.Command{
		Use:   "floor TARGET...",
		Short: "Run the same cases written directly against an engine's C API (QuickJS's by default): the floor to approach",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFloorEngine(o.Engine); err != nil {
				return err
			}
			return measure(cmd, args)
		},
	}
	o.register(cmd, false)
	cmd.Flags().StringVar(&o.Engine, "engine", engines.Default, "the engine whose floor to run: "+strings.Join(engines.Names(), ", ")+" (bench-bridge engines)")
	cmd.RegisterFlagCompletionFunc("engine", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return engines.Names(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// checkFloorEngine refuses an engine bench-bridge does not know, or has no floor for yet.
func checkFloorEngine(name string) error {
	e, err := engines.Lookup(name)
	if err != nil {
		return fmt.Errorf("--engine: %w", err)
	}
	if e.Floor == nil {
		return fmt.Errorf("--engine %s: bench-bridge has no floor for %s yet (bench-bridge engines lists the engines with one)", name, e.Title)
	}
	return nil
}
