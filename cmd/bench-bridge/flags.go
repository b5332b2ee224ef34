package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Flag groups: a command registers the groups it reads and no others. Only measuring commands take the measuring
// flags; doctor and targets take the device flags; profile the build and device flags.

// registerDeviceFlags adds the flags that say how to reach a device.
func registerDeviceFlags(f *pflag.FlagSet, o *targets.Overrides) {
	f.StringVar(&o.Serial, "serial", "", "adb: the device's serial when several are attached (default $ANDROID_SERIAL); several, or models, separated by commas: a target each")
	f.StringVarP(&o.ADBHost, "adb-host", "H", "", "adb: host of the adb server, as adb -H (default $ANDROID_ADB_SERVER_ADDRESS, else localhost)")
	f.IntVarP(&o.ADBPort, "adb-port", "P", 0, "adb: port of the adb server, as adb -P (default $ANDROID_ADB_SERVER_PORT, else 5037)")
	f.StringVar(&o.Host, "host", "", "ssh: [user@]host[:port] of the device; several separated by commas: a target each")
	f.StringVar(&o.Identity, "identity", "", "ssh: private key file")
	f.StringVar(&o.KnownHosts, "known-hosts", "", "ssh: known_hosts file (default ~/.ssh/known_hosts)")
	f.StringVar(&o.AcceptHostKey, "accept-host-key", "", "ssh: record an unknown host key in the known_hosts file when its `fingerprint` is this one (SHA256:..., as ssh-keygen -lf prints it on the device; several separated by commas); bare, it records nothing and the error names the fingerprint to check; a changed key is always refused")
	f.Lookup("accept-host-key").NoOptDefVal = targets.AcceptHostKeyUnchecked // bare: the error prints the fingerprint to pass
	f.StringVar(&o.RunPrefix, "run-prefix", "", "command put before the program on the device, e.g. \"taskset 2\" (a hex mask: core 1)")
	f.StringVar(&o.Workdir, "workdir", "", "directory on the device in which each run makes a folder of its own for its programs; it must allow executables (default "+targets.DefaultAndroidWorkdir+" on Android, /tmp over ssh)")
}

// registerConfigFlag adds --config.
func registerConfigFlag(f *pflag.FlagSet, file *string) {
	f.StringVar(file, "config", "", "config file (default ./"+config.DefaultFile+" when it exists)")
}

// buildFlags say which program to build (session.Choice).
type buildFlags struct{ session.Choice }

func (b *buildFlags) register(f *pflag.FlagSet, bridge bool) {
	f.StringVar(&b.QuickJSSrc, "quickjs-src", "", "QuickJS source tree to build against (default: the pinned release, fetched and cached; also $BENCH_BRIDGE_QUICKJS_SRC)")
	f.StringArrayVar(&b.Defines, "define", nil, "compile-time option NAME[=VALUE] of the program, repeatable")
	if bridge {
		f.StringVar(&b.Codec, "codec", "json", "reference bridge codec")
		f.StringVar(&b.Bridge, "bridge", "", "measure a bridge declared in the config (bridges.NAME) instead of the reference bridge")
	}
}

// changed records which flags the command line gave.
func (b *buildFlags) changed(f *pflag.FlagSet) {
	b.QuickJSSrcSet, b.CodecSet = f.Changed("quickjs-src"), f.Changed("codec")
}

// measureFlags are the flags of a measuring command: what to run and how long, where the artifact goes, what the
// terminal shows.
type measureFlags struct {
	session.Settings
	out     string
	quiet   bool
	verbose bool
	wait    time.Duration
}

// outUsage is what --out says on a command that measures one or more targets.
const outUsage = "artifact path (default " + DefaultOutDir + "/<name>.json; a run of some --cases: <name>-subset-<hash>.json); " +
	"with several targets it must hold " + session.TargetPlaceholder + ", which becomes each target's name"

func (m *measureFlags) register(f *pflag.FlagSet) {
	d := runner.DefaultOptions()
	f.StringVar(&m.Cases, "cases", "", "comma-separated cases to run (default all; ref_js_loop is always included)")
	f.IntVar(&m.Runs, "runs", d.Runs, "processes of the program, each running every case in its own order (the variance is between processes)")
	f.IntVar(&m.Samples, "samples", d.Samples, "timed samples per case in each process")
	f.Uint64Var(&m.Seed, "seed", 0, "seed of the processes' case orders (default: drawn, and recorded in the artifact)")
	f.Float64Var(&m.Slowdown, "slowdown", 0, "add busy work worth this share of each crossing, calibrated on the device (0.10: the gate's A/B proof)")
	f.IntVar(&m.SlowdownSteps, "slowdown-steps", 0, "add this many busy-work steps per crossing instead: the same instructions everywhere (the instruction gate's A/B proof)")
	f.DurationVar(&m.MinTime, "min-time", d.MinTime, "least duration of one sample")
	f.DurationVar(&m.Warmup, "warmup", 0, "warm-up per case (default: --min-time)")
	f.DurationVar(&m.Stall, "stall-timeout", d.Stall, "kill the program when it prints nothing for this long")
	f.StringVar(&m.out, "out", "", outUsage)
	f.BoolVarP(&m.quiet, "quiet", "q", false, "print only the table and errors")
	f.BoolVarP(&m.verbose, "verbose", "v", false, "print every case as it finishes, also on a terminal")
	f.StringVar(&m.Record, "metric", session.RecordTimes, "time, or instructions: the times, then instructions per op counted under valgrind's callgrind")
	registerWaitFlag(f, &m.wait)
	f.StringVar(&m.CPU, "cpu", "", "pin the program to a core (its `number`), or to the big or little cores (told apart by cpu_capacity or cpuinfo_max_freq)")
	f.BoolVar(&m.LockClocks, "lock-clocks", false, "rooted device: hold the pinned cores' clusters (all without --cpu) at one frequency, restoring the settings afterwards")
	f.DurationVar(&m.Cooldown, "cooldown", 0, "rest this long, then measure again each process marked for running in another state (a ref_js_loop 10% slower than the fastest process's, a clock that changed)")
}

func (m *measureFlags) changed(f *pflag.FlagSet) {
	m.SamplesSet, m.MinTimeSet = f.Changed("samples"), f.Changed("min-time")
}

// addCaseCompletion completes --cases with the catalogue's names.
func addCaseCompletion(cmd *cobra.Command) {
	cmd.RegisterFlagCompletionFunc("cases", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return cases.Names(), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}

// targetCompletion completes target names: the built-in ones and the config's.
func targetCompletion(configFile *string, load configFunc) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		cfg, err := load(*configFile)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return targets.Names(cfg.Specs()), cobra.ShellCompDirectiveNoFileComp
	}
}

// registerWaitFlag adds --wait: how long a run waits for a device that another run holds.
func registerWaitFlag(f *pflag.FlagSet, wait *time.Duration) {
	f.DurationVar(wait, "wait", 0, "how long to wait for a device that another run holds before failing (default: until it is free)")
}

// joinAcceptHostKey lets --accept-host-key take its fingerprint as the next word (--accept-host-key SHA256:...).
// The flag may also stand alone, which pflag allows only by never taking the next word: so a fingerprint that
// follows it is joined to it here. A word that is no fingerprint stays what it was (a target name).
func joinAcceptHostKey(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--accept-host-key" && i+1 < len(args) && strings.HasPrefix(args[i+1], "SHA256:") {
			a, i = a+"="+args[i+1], i+1
		}
		out = append(out, a)
	}
	return out
}
