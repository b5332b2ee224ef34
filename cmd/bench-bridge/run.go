package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/reports"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// DefaultOutDir is where artifacts go unless --out or the config's out_dir says otherwise: a folder of their own, not
// docs/reports/bench, whose artifacts are committed.
const DefaultOutDir = "out"

// measureOptions are a measuring command's: the program to build, how to measure it, the targets, and what it
// needs from outside (the streams, a way to open a target). The bridge commands, floor and the root share them.
type measureOptions struct {
	IO         *IOStreams
	OpenTarget session.OpenFunc
	ListADB    session.ListADBFunc
	Builder    session.BuildFunc
	Config     configFunc
	ctx        context.Context

	Kind       string   // artifact.ProgramBridge or artifact.ProgramFloor
	Engine     string   // the floor's engine (floor --engine); "" for QuickJS
	Targets    []string // the targets' words: names, and ssh [USER@]HOST for a board (session.ResolveTargets)
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
	return runCmd(o, runF, measureRun, func(cmd *cobra.Command, args []string) error {
		o.ctx, o.Targets = cmd.Context(), append(slices.Clone(first), args...)
		o.Measure.changed(cmd.Flags())
		o.Build.changed(cmd.Flags())
		return nil
	})
}

// newPlan is the plan of a command's jobs of kind, from its flags and the config (session.NewPlan).
func newPlan(kind string, b buildFlags, m measureFlags, cfg *config.Config) (session.Plan, error) {
	return session.NewPlan(kind, b.Choice, m.Settings, m.out, DefaultOutDir, cfg)
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
	names, cfg, err := session.ResolveTargets(o.Targets, cfg, o.Device.Host)
	if err != nil {
		return err
	}
	specs := cfg.Specs()
	names, dev, err := session.Devices(o.ctx, names, specs, o.Device, o.All, o.ListADB)
	if err != nil {
		return err
	}
	if err := session.CheckOut(o.Measure.out, names); err != nil {
		return err
	}
	p, err := newPlan(o.Kind, o.Build, o.Measure, cfg)
	if err != nil {
		return err
	}
	p.Builder, p.Engine = o.Builder, o.Engine
	if o.Measure.Record != session.RecordInstructions && !o.Measure.quiet {
		// What gate will judge this run by (the nightly's, or a user's) is said before it is measured, not after.
		if why := analysis.TooFewProcesses(p.Options.Runs, cfg.Gate.Options()); why != "" {
			fmt.Fprintf(o.IO.ErrOut, "bench-bridge: note: %s\n", why)
		}
	}
	disp := o.IO.Progress(o.Measure.quiet, o.Measure.verbose)
	dev.Log = disp
	track := func(job *runner.Job) {
		job.Options.OnEvent = disp.Track(strings.TrimSuffix(session.DefaultName(job.Target.Name(), job.Kind, job.Codec, job.Engine), ".json"), len(job.Options.Cases))
	}
	arts, files, runErr := session.OnTargets(o.ctx, o.OpenTarget, names, specs, dev, p, o.Measure.wait, disp, track)
	if len(arts) > 0 {
		// The table judges its columns as gate would: by the config's thresholds.
		if err := reports.Render(o.IO.Out, analysis.Build(analysis.LoadedFrom(arts, files), cfg.Gate.Options(), nil), "text"); err != nil {
			return err
		}
	}
	return runErr
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
			if _, err := engines.WithFloor(o.Engine); err != nil {
				return fmt.Errorf("--engine %s: %w", o.Engine, err)
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
