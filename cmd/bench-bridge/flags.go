package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bench-bridge/bench-bridge/build"
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

// buildFlags say which program to build: the reference bridge's codec or a bridge of the config, QuickJS's source and
// compile-time options.
type buildFlags struct {
	quickjsSrc string
	codec      string
	bridge     string
	defines    []string

	quickjsSrcSet, codecSet bool // given on the command line, so not taken from the config
}

func (b *buildFlags) register(f *pflag.FlagSet, bridge bool) {
	f.StringVar(&b.quickjsSrc, "quickjs-src", "", "QuickJS source tree to build against (default: the pinned release, fetched and cached; also $BENCH_BRIDGE_QUICKJS_SRC)")
	f.StringArrayVar(&b.defines, "define", nil, "compile-time option NAME[=VALUE] of the program, repeatable")
	if bridge {
		f.StringVar(&b.codec, "codec", "json", "reference bridge codec")
		f.StringVar(&b.bridge, "bridge", "", "measure a bridge declared in the config (bridges.NAME) instead of the reference bridge")
	}
}

// changed records which flags the command line gave.
func (b *buildFlags) changed(f *pflag.FlagSet) {
	b.quickjsSrcSet, b.codecSet = f.Changed("quickjs-src"), f.Changed("codec")
}

// The words of the command layer, each with one meaning: a program's kind is bridge or floor (session.Plan.Kind,
// runner.Job.Kind, artifact.Program, profile's --program); a program is what is built and run (build.Program); a
// session.Program is what the build flags resolve to; a compare argument names one program of a compare
// (session.ProgramArg). A measuring command's --metric says what the run records (recordTimes, recordInstructions), a
// gate's --metric what it judges (gate.Metrics).

// What a measuring run records (--metric): the times, or the times and then instructions per op under callgrind.
const (
	recordTimes        = "time"
	recordInstructions = "instructions"
)

// resolve checks the build flags against the config: the program every job of the command builds.
func (b buildFlags) resolve(cfg *config.Config) (session.Program, error) {
	p := session.Program{Codec: b.codec, QuickJSSrc: b.quickjsSrc, Defines: slices.Clone(b.defines)}
	if !b.quickjsSrcSet && cfg.QuickJS.Src != "" {
		p.QuickJSSrc = cfg.Resolve(cfg.QuickJS.Src)
	}
	if b.bridge == "" {
		return p, nil
	}
	name, rev := splitRev(b.bridge)
	if rev == "" && name != b.bridge {
		return p, fmt.Errorf("--bridge %s: no revision after @ (want NAME@REV: a commit, tag, branch or %sBRANCH)", b.bridge, build.MergeBasePrefix)
	}
	if _, err := cfg.Bridge(name); err != nil {
		return p, err
	}
	user, err := session.Bridge(cfg, name, rev)
	if err != nil {
		return p, fmt.Errorf("--bridge %s: %w", b.bridge, err)
	}
	if b.codecSet {
		return p, fmt.Errorf("--codec %s and --bridge %s: --codec picks the reference bridge's codec; a bridge of yours has its own", b.codec, b.bridge)
	}
	if len(b.defines) > 0 {
		return p, fmt.Errorf("--define applies to the reference bridge and the floor, not to --bridge %s (its build command sets its flags)", b.bridge)
	}
	p.Codec, p.User = name, user
	return p, nil
}

// splitRev splits a user's bridge NAME@REV into its name and revision ("" for none): a commit, tag, branch,
// origin/main, or merge-base:BRANCH (build.MergeBasePrefix).
func splitRev(arg string) (name, rev string) {
	name, rev, _ = strings.Cut(arg, "@")
	return name, rev
}

// measureFlags are the flags of a measuring command: what to run and how long, where the artifact goes, what the
// terminal shows.
type measureFlags struct {
	cases    string
	samples  int
	runs     int
	seed     uint64
	slowdown float64
	steps    int
	minTime  time.Duration
	warmup   time.Duration
	stall    time.Duration
	out      string
	quiet    bool
	verbose  bool
	record   string // --metric: recordTimes or recordInstructions
	wait     time.Duration
	cpu      string
	lock     bool
	cooldown time.Duration

	samplesSet, minTimeSet bool // given on the command line, so not taken from the config
}

// outUsage is what --out says on a command that measures one or more targets.
const outUsage = "artifact path (default " + DefaultOutDir + "/<name>.json; a run of some --cases: <name>-subset-<hash>.json); " +
	"with several targets it must hold " + targetPlaceholder + ", which becomes each target's name"

func (m *measureFlags) register(f *pflag.FlagSet) {
	d := runner.DefaultOptions()
	f.StringVar(&m.cases, "cases", "", "comma-separated cases to run (default all; ref_js_loop is always included)")
	f.IntVar(&m.runs, "runs", d.Runs, "processes of the program, each running every case in its own order (the variance is between processes)")
	f.IntVar(&m.samples, "samples", d.Samples, "timed samples per case in each process")
	f.Uint64Var(&m.seed, "seed", 0, "seed of the processes' case orders (default: drawn, and recorded in the artifact)")
	f.Float64Var(&m.slowdown, "slowdown", 0, "add busy work worth this share of each crossing, calibrated on the device (0.10: the gate's A/B proof)")
	f.IntVar(&m.steps, "slowdown-steps", 0, "add this many busy-work steps per crossing instead: the same instructions everywhere (the instruction gate's A/B proof)")
	f.DurationVar(&m.minTime, "min-time", d.MinTime, "least duration of one sample")
	f.DurationVar(&m.warmup, "warmup", 0, "warm-up per case (default: --min-time)")
	f.DurationVar(&m.stall, "stall-timeout", d.Stall, "kill the program when it prints nothing for this long")
	f.StringVar(&m.out, "out", "", outUsage)
	f.BoolVarP(&m.quiet, "quiet", "q", false, "print only the table and errors")
	f.BoolVarP(&m.verbose, "verbose", "v", false, "print every case as it finishes, also on a terminal")
	f.StringVar(&m.record, "metric", recordTimes, "time, or instructions: the times, then instructions per op counted under valgrind's callgrind")
	registerWaitFlag(f, &m.wait)
	f.StringVar(&m.cpu, "cpu", "", "pin the program to a core (its `number`), or to the big or little cores (told apart by cpu_capacity or cpuinfo_max_freq)")
	f.BoolVar(&m.lock, "lock-clocks", false, "rooted device: hold the pinned cores' clusters (all without --cpu) at one frequency, restoring the settings afterwards")
	f.DurationVar(&m.cooldown, "cooldown", 0, "rest this long, then measure again each process marked for running in another state (a ref_js_loop 10% slower than the fastest process's, a clock that changed)")
}

func (m *measureFlags) changed(f *pflag.FlagSet) {
	m.samplesSet, m.minTimeSet = f.Changed("samples"), f.Changed("min-time")
}

// options checks the flags and turns them, with the config's defaults for what they left unset, into the runner's
// options. The result is a value: each job gets its own copy.
func (m measureFlags) options(cfg *config.Config) (runner.Options, error) {
	if !m.samplesSet && cfg.Defaults.Samples > 0 {
		m.samples = cfg.Defaults.Samples
	}
	if !m.minTimeSet && cfg.Defaults.MinTime.Duration > 0 {
		m.minTime = cfg.Defaults.MinTime.Duration
	}
	opts := runner.DefaultOptions()
	names, err := cases.Select(m.cases)
	if err != nil {
		return opts, err
	}
	switch {
	case m.samples < 1:
		return opts, fmt.Errorf("--samples must be at least 1, got %d", m.samples)
	case m.runs < 1:
		return opts, fmt.Errorf("--runs must be at least 1, got %d", m.runs)
	case !(m.slowdown >= 0 && m.slowdown <= 10):
		return opts, fmt.Errorf("--slowdown %v: want a share between 0 and 10, like 0.10", m.slowdown)
	case m.steps < 0 || (m.steps > 0 && m.slowdown > 0):
		return opts, fmt.Errorf("--slowdown-steps %d: want a positive count, and not with --slowdown", m.steps)
	case m.minTime <= 0:
		return opts, fmt.Errorf("--min-time must be positive, got %s", m.minTime)
	case m.record != recordTimes && m.record != recordInstructions:
		return opts, fmt.Errorf("--metric %q: want %s or %s", m.record, recordTimes, recordInstructions)
	case !validCPU(m.cpu):
		return opts, fmt.Errorf("--cpu %q: want a core's number, big or little", m.cpu)
	case m.cooldown < 0:
		return opts, fmt.Errorf("--cooldown must not be negative, got %s", m.cooldown)
	}
	opts.CPU, opts.LockClocks, opts.Cooldown = m.cpu, m.lock, m.cooldown
	opts.Cases, opts.Samples, opts.MinTime, opts.Stall = names, m.samples, m.minTime, m.stall
	opts.Runs, opts.Seed, opts.Slowdown, opts.SlowdownSteps = m.runs, m.seed, m.slowdown, m.steps
	opts.Warmup = m.warmup
	if opts.Warmup <= 0 {
		opts.Warmup = m.minTime
	}
	opts.Instructions = m.record == recordInstructions
	return opts, nil
}

// validCPU reports whether --cpu names a core (a non-negative number), big, little, or nothing.
func validCPU(cpu string) bool {
	if cpu == "" || cpu == "big" || cpu == "little" {
		return true
	}
	n, err := strconv.Atoi(cpu)
	return err == nil && n >= 0
}

// targetPlaceholder in --out is replaced by each target's name.
const targetPlaceholder = session.TargetPlaceholder

// checkOut refuses an --out that several targets would all write to.
func checkOut(out string, targetNames []string) error {
	if out != "" && len(targetNames) > 1 && !strings.Contains(out, targetPlaceholder) {
		return fmt.Errorf("--out %s with %d targets (%s): every artifact would go to that one file; put %s in it, which becomes each target's name",
			out, len(targetNames), strings.Join(targetNames, ", "), targetPlaceholder)
	}
	return nil
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
