package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/doctor"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// doctorOptions are doctor's: the targets to check and how to reach them; no measuring flags.
type doctorOptions struct {
	IO     *IOStreams
	Config configFunc
	ctx    context.Context

	Targets    []string // names, and ssh [USER@]HOST for a board (session.ResolveTargets)
	ConfigFile string
	QuickJSSrc string
	Device     targets.Overrides
	JSON       bool
}

// newCmdDoctor is `bench-bridge doctor [TARGET...]`.
func newCmdDoctor(f *Factory, runF func(*doctorOptions) error) *cobra.Command {
	o := &doctorOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "doctor [TARGET...]",
		Short: "Check what a run needs (compiler, QuickJS, device, profilers) and say how to fix what is missing",
		Long: `doctor checks, for each target (default: the local machine and every configured target; ssh [USER@]HOST
names a board), the C compiler of its toolchain, QuickJS's source, that the device is reachable and runs programs
(adb server and device, ssh host key and login), the run prefix's command and the profilers on the device. For each
missing part it prints the command that fixes it. It exits 1 when a required part is missing.`,
		Example: `  bench-bridge doctor
  bench-bridge doctor android webos --host root@touchpad
  bench-bridge doctor ssh root@board`,
		RunE: runCmd(o, runF, doctorRun, func(cmd *cobra.Command, args []string) error {
			o.ctx, o.Targets = cmd.Context(), args
			return nil
		}),
	}
	f2 := cmd.Flags()
	f2.StringVar(&o.QuickJSSrc, "quickjs-src", "", "QuickJS source tree to check (default: the pinned release in the cache; also $BENCH_BRIDGE_QUICKJS_SRC)")
	f2.BoolVar(&o.JSON, "json", false, "print the findings as JSON")
	registerConfigFlag(f2, &o.ConfigFile)
	registerDeviceFlags(f2, &o.Device)
	cmd.ValidArgsFunction = targetCompletion(&o.ConfigFile, o.Config)
	return cmd
}

func doctorRun(o *doctorOptions) error {
	cfg, err := o.Config(o.ConfigFile)
	if err != nil {
		return err
	}
	var names []string
	if len(o.Targets) == 0 {
		names = doctor.DefaultTargets(cfg)
	} else if names, cfg, err = session.ResolveTargets(o.Targets, cfg, o.Device.Host); err != nil {
		return err
	}
	dev := o.Device
	dev.Log = o.IO.ErrOut // what opening a device says: a recorded host key, a removed leftover
	fs := doctor.Check(o.ctx, cfg, names, doctor.Options{QuickJSSrc: o.QuickJSSrc, Overrides: dev, Timeout: 20 * time.Second})
	if o.JSON {
		enc := json.NewEncoder(o.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(fs); err != nil {
			return err
		}
	} else {
		doctor.Write(o.IO.Out, fs)
	}
	if doctor.Failed(fs) {
		return fmt.Errorf("a required part is missing (see the fix lines above)")
	}
	return nil
}

// targetsOptions are the targets command's: how to reach the devices.
type targetsOptions struct {
	IO         *IOStreams
	OpenTarget session.OpenFunc
	Config     configFunc
	ctx        context.Context

	ConfigFile string
	Device     targets.Overrides
}

// newCmdTargets is `bench-bridge targets`.
func newCmdTargets(f *Factory, runF func(*targetsOptions) error) *cobra.Command {
	o := &targetsOptions{IO: f.IO, OpenTarget: f.OpenTarget, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "targets",
		Short: "List the built-in and configured targets and whether each is reachable now",
		Args:  cobra.NoArgs,
		RunE: runCmd(o, runF, targetsRun, func(cmd *cobra.Command, _ []string) error {
			o.ctx = cmd.Context()
			return nil
		}),
	}
	registerConfigFlag(cmd.Flags(), &o.ConfigFile)
	registerDeviceFlags(cmd.Flags(), &o.Device)
	return cmd
}

func targetsRun(o *targetsOptions) error {
	cfg, err := o.Config(o.ConfigFile)
	if err != nil {
		return err
	}
	names := targets.Names(cfg.Specs())
	status := session.Reach(o.ctx, o.OpenTarget, names, cfg.Specs(), o.Device, reachBound, func(name string) string {
		if _, configured := cfg.Targets[name]; name == session.SSHBoard && !configured && o.Device.Host == "" {
			return "-: names a board on the command line (bench-bridge ssh [USER@]HOST)" // no device until it does
		}
		return ""
	})
	tw := tabwriter.NewWriter(o.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tkind\tfrom\treachable")
	for i, n := range names {
		spec, _ := targets.Lookup(n, cfg.Specs())
		from := "built-in"
		if _, ok := cfg.Targets[n]; ok {
			from = "config"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n, spec.Kind, from, status[i])
	}
	return tw.Flush()
}

// reachBound is how long `bench-bridge targets` gives each target to open and run `true`.
var reachBound = 10 * time.Second

// localName is the built-in name of this machine (targets.LocalName).
var localName = targets.LocalName
