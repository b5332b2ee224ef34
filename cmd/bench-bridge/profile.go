package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/profile"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// profileOptions are profile's: the program to build, the target and case, the profiler; no measuring flags.
type profileOptions struct {
	IO         *IOStreams
	OpenTarget session.OpenFunc
	Builder    session.BuildFunc
	Config     configFunc
	ctx        context.Context

	Target     []string // the target's words: its name, or ssh and a board's [USER@]HOST (session.ResolveTargets)
	Case       string
	Seconds    float64
	Kind       string // artifact.ProgramBridge or artifact.ProgramFloor (--program)
	Tool       string
	OutDir     string
	ConfigFile string
	Build      buildFlags
	Device     targets.Overrides
	Wait       time.Duration // for a device another run holds
	// Diff, when set, is a first program (as compare names one: floor, a codec, NAME[@REV]) profiled before the
	// one the flags name, for a differential flame graph of what the second added.
	Diff string
}

// newCmdProfile is `bench-bridge profile TARGET CASE [SECS]`, where TARGET may be ssh [USER@]HOST.
func newCmdProfile(f *Factory, runF func(*profileOptions) error) *cobra.Command {
	o := &profileOptions{IO: f.IO, OpenTarget: f.OpenTarget, Builder: f.Builder, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "profile TARGET CASE [SECS]",
		Short: "Run one case in a loop under the target's profiler and summarise where the time goes",
		Long: `profile runs one case of the bridge (or of the floor, --program floor) in the bench program's loop mode
for SECS seconds (default 5) under the target's profiler, saves the raw output as
out/profile-<target>-<case>.txt (and the profiler's data file beside it), and prints the top
functions by self share and the share of each part: number text, allocation, the boundary, the interpreter, the
kernel. Profilers: perf, strace, callgrind (linux), sample (mac), simpleperf or strace (android), perf or strace
(ssh targets), and on every Linux or Android target itimer: the bench program's own sampler (SIGPROF and
frame-pointer stacks), symbolised here, for kernels without perf events, qemu and boards without perf. Without
--tool the target's sampling profiler is tried first and itimer where it cannot record.

The profilers that sample stacks (perf, simpleperf, itimer) also write a flame graph (.svg) and a pprof profile
(.pb.gz, for go tool pprof -http and speedscope) beside the raw output. --diff PROGRAM profiles PROGRAM first, with
the same profiler, and writes a differential flame graph (-diff.svg): red where the program of the flags added.`,
		Example: `  bench-bridge profile linux script_to_host_scalar 5
  bench-bridge profile linux script_to_host_object 3 --tool callgrind
  bench-bridge profile linux callback --program floor
  bench-bridge profile webos script_to_host_scalar --tool itimer --host root@touchpad
  bench-bridge profile ssh root@board script_to_host_scalar 3`,
		Args: func(cmd *cobra.Command, args []string) error {
			return cobra.RangeArgs(1+session.TargetWords(args), 2+session.TargetWords(args))(cmd, args)
		},
		RunE: runCmd(o, runF, profileRun, o.args),
	}
	fl := cmd.Flags()
	o.Build.register(fl, true)
	registerConfigFlag(fl, &o.ConfigFile)
	registerDeviceFlags(fl, &o.Device)
	registerWaitFlag(fl, &o.Wait)
	fl.StringVar(&o.Kind, "program", artifact.ProgramBridge, "program to profile: bridge or floor")
	fl.StringVar(&o.Tool, "tool", "", "profiler: "+strings.Join(profile.ToolNames(), ", ")+" (default: the target's best)")
	fl.StringVar(&o.OutDir, "out-dir", DefaultOutDir, "where the raw output and data file go")
	fl.StringVar(&o.Diff, "diff", "", "profile this program first, with the same profiler (floor, a codec, a bridge NAME[@REV]), and write a differential flame graph of what the program of the flags added")
	cmd.ValidArgsFunction = targetCompletion(&o.ConfigFile, o.Config)
	return cmd
}

func profileRun(o *profileOptions) (err error) {
	stderr := o.IO.ErrOut
	cfg, err := o.Config(o.ConfigFile)
	if err != nil {
		return err
	}
	prog, err := o.Build.Resolve(cfg)
	if err != nil {
		return err
	}
	names, cfg, err := session.ResolveTargets(o.Target, cfg, o.Device.Host)
	if err != nil {
		return err
	}
	dev := o.Device
	dev.Log = stderr
	t, err := o.OpenTarget(o.ctx, names[0], cfg.Specs(), dev)
	if err != nil {
		return err
	}
	defer t.Close()
	ctx, release, err := session.Hold(o.Wait, stderr)(o.ctx, t)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, release()) }()
	var base *session.ProgramArg
	if o.Diff != "" {
		arg, err := session.ParseProgramArg(o.Diff, cfg)
		if err != nil {
			return fmt.Errorf("--diff: %w", err)
		}
		base = &arg
	}
	p := session.Profiling{Config: cfg, Target: t, Case: o.Case, Seconds: o.Seconds, Tool: o.Tool, OutDir: o.OutDir, Builder: o.Builder, Log: stderr}
	res, err := p.Run(ctx, o.Kind, prog, base, o.Build.Choice)
	if err != nil {
		return err
	}
	res.Summary.Write(o.IO.Out)
	return nil
}

// args reads profile's arguments and checks its flags.
func (o *profileOptions) args(cmd *cobra.Command, args []string) error {
	n := session.TargetWords(args)
	o.ctx, o.Target, o.Case, o.Seconds = cmd.Context(), args[:n], args[n], 5
	if _, ok := cases.Lookup(o.Case); !ok {
		return fmt.Errorf("unknown case %q (bench-bridge cases lists them)", o.Case)
	}
	if len(args) == n+2 {
		var err error
		if o.Seconds, err = profile.ParseSeconds(args[n+1]); err != nil {
			return err
		}
	}
	if !slices.Contains([]string{artifact.ProgramBridge, artifact.ProgramFloor}, o.Kind) {
		return fmt.Errorf("--program %q: want bridge or floor", o.Kind)
	}
	if o.Tool != "" && !slices.Contains(profile.ToolNames(), o.Tool) {
		return fmt.Errorf("--tool %q: want one of %s", o.Tool, strings.Join(profile.ToolNames(), ", "))
	}
	o.Build.changed(cmd.Flags())
	return nil
}
