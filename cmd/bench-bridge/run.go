package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/reports"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/targets"
)

// DefaultOutDir is where artifacts go unless --out or the config's out_dir says otherwise: a folder of their own, not
// docs/reports/bench, whose artifacts are committed.
const DefaultOutDir = "out"

// runOptions are the flags of a measuring command.
type runOptions struct {
	cases      string
	samples    int
	runs       int
	seed       uint64
	slowdown   float64
	steps      int
	minTime    time.Duration
	warmup     time.Duration
	stall      time.Duration
	out        string
	quickjsSrc string
	codec      string
	bridge     string
	configFile string
	quiet      bool
	verbose    bool
	target     targets.Overrides
	metric     string
	defines    []string
}

func (o *runOptions) register(cmd *cobra.Command, bridge bool) {
	d := runner.DefaultOptions()
	f := cmd.Flags()
	f.StringVar(&o.cases, "cases", "", "comma-separated cases to run (default all; ref_js_loop is always included)")
	f.IntVar(&o.runs, "runs", d.Runs, "processes of the program, each running every case in its own order (the variance is between processes)")
	f.IntVar(&o.samples, "samples", d.Samples, "timed samples per case in each process")
	f.Uint64Var(&o.seed, "seed", 0, "seed of the processes' case orders (default: drawn, and recorded in the artifact)")
	f.Float64Var(&o.slowdown, "slowdown", 0, "add busy work worth this share of each crossing, calibrated on the device (0.10: the gate's A/B proof)")
	f.IntVar(&o.steps, "slowdown-steps", 0, "add this many busy-work steps per crossing instead: the same instructions everywhere (the instruction gate's A/B proof)")
	f.DurationVar(&o.minTime, "min-time", d.MinTime, "least duration of one sample")
	f.DurationVar(&o.warmup, "warmup", 0, "warm-up per case (default: --min-time)")
	f.DurationVar(&o.stall, "stall-timeout", d.Stall, "kill the program when it prints nothing for this long")
	f.StringVar(&o.out, "out", "", "artifact path (default "+DefaultOutDir+"/<name>.json; a run of some --cases: <name>-subset-<hash>.json)")
	f.StringVar(&o.quickjsSrc, "quickjs-src", "", "QuickJS source tree to build against (default: the pinned release, fetched and cached; also $BENCH_BRIDGE_QUICKJS_SRC)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print only the table and errors")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "print every case as it finishes, also on a terminal")
	f.StringVar(&o.configFile, "config", "", "config file (default ./"+config.DefaultFile+" when it exists)")
	f.StringVar(&o.target.Serial, "serial", "", "adb: the device's serial when several are attached (default $ANDROID_SERIAL)")
	f.StringVar(&o.target.Host, "host", "", "ssh: [user@]host[:port] of the device")
	f.StringVar(&o.target.Identity, "identity", "", "ssh: private key file")
	f.StringVar(&o.target.KnownHosts, "known-hosts", "", "ssh: known_hosts file (default ~/.ssh/known_hosts)")
	f.StringVar(&o.target.AcceptHostKey, "accept-host-key", "", "ssh: record an unknown host key in the known_hosts file when its `fingerprint` is this one (SHA256:..., as ssh-keygen -lf prints it on the device; several separated by commas); a changed key is always refused")
	f.Lookup("accept-host-key").NoOptDefVal = targets.AcceptHostKeyUnchecked // bare: the error prints the fingerprint to pass
	f.StringVar(&o.target.RunPrefix, "run-prefix", "", "command put before the program on the device, e.g. \"taskset -c 1\"")
	f.StringVar(&o.target.Workdir, "workdir", "", "directory for the programs on the device")
	f.StringVar(&o.metric, "metric", "time", "time, or instructions: the times, then instructions per op counted under valgrind's callgrind")
	f.StringArrayVar(&o.defines, "define", nil, "compile-time option NAME[=VALUE] of the program, repeatable")
	if bridge {
		f.StringVar(&o.codec, "codec", "json", "reference bridge codec")
		f.StringVar(&o.bridge, "bridge", "", "measure a bridge declared in the config (bridges.NAME) instead of the reference bridge")
	}
}

// applyConfig fills what the flags left unset from the config's defaults.
func (o *runOptions) applyConfig(cmd *cobra.Command, c *config.Config) {
	f := cmd.Flags()
	if !f.Changed("samples") && c.Defaults.Samples > 0 {
		o.samples = c.Defaults.Samples
	}
	if !f.Changed("min-time") && c.Defaults.MinTime.Duration > 0 {
		o.minTime = c.Defaults.MinTime.Duration
	}
	if !f.Changed("quickjs-src") && c.QuickJS.Src != "" {
		o.quickjsSrc = c.Resolve(c.QuickJS.Src)
	}
}

// job turns the flags and the config into a runner job for target and program kind.
func (o *runOptions) job(cmd *cobra.Command, cfg *config.Config, t targets.Target, kind string, log io.Writer) (*runner.Job, error) {
	o.applyConfig(cmd, cfg)
	var user *runner.UserBridge
	if o.bridge != "" {
		b, err := cfg.Bridge(o.bridge)
		if err != nil {
			return nil, err
		}
		if cmd.Flags().Changed("codec") {
			return nil, fmt.Errorf("--codec %s and --bridge %s: --codec picks the reference bridge's codec; a bridge of yours has its own", o.codec, o.bridge)
		}
		user = &runner.UserBridge{Name: o.bridge, Dir: cfg.Dir(), Build: b.Build, Binary: b.Binary}
		o.codec = o.bridge
	}
	names, err := cases.Select(o.cases)
	if err != nil {
		return nil, err
	}
	if o.samples < 1 {
		return nil, fmt.Errorf("--samples must be at least 1, got %d", o.samples)
	}
	if o.runs < 1 {
		return nil, fmt.Errorf("--runs must be at least 1, got %d", o.runs)
	}
	if !(o.slowdown >= 0 && o.slowdown <= 10) {
		return nil, fmt.Errorf("--slowdown %v: want a share between 0 and 10, like 0.10", o.slowdown)
	}
	if o.steps < 0 || (o.steps > 0 && o.slowdown > 0) {
		return nil, fmt.Errorf("--slowdown-steps %d: want a positive count, and not with --slowdown", o.steps)
	}
	if o.minTime <= 0 {
		return nil, fmt.Errorf("--min-time must be positive, got %s", o.minTime)
	}
	if o.metric != "time" && o.metric != "instructions" {
		return nil, fmt.Errorf("--metric %q: want time or instructions", o.metric)
	}
	if len(o.defines) > 0 && user != nil {
		return nil, fmt.Errorf("--define applies to the reference bridge and the floor, not to --bridge %s (its build command sets its flags)", o.bridge)
	}
	opts := runner.DefaultOptions()
	opts.Cases, opts.Samples, opts.MinTime, opts.Stall = names, o.samples, o.minTime, o.stall
	opts.Runs, opts.Seed, opts.Slowdown, opts.SlowdownSteps = o.runs, o.seed, o.slowdown, o.steps
	opts.Warmup = o.warmup
	if opts.Warmup <= 0 {
		opts.Warmup = o.minTime
	}
	opts.Progress = log
	opts.Instructions = o.metric == "instructions"
	out := o.out
	if out == "" {
		dir := DefaultOutDir
		if cfg.Defaults.OutDir != "" {
			dir = cfg.Resolve(cfg.Defaults.OutDir)
		}
		out = filepath.Join(dir, subsetName(defaultName(t.Name(), kind, o.codec), names))
	}
	return &runner.Job{Target: t, Kind: kind, Codec: o.codec, QuickJSSrc: o.quickjsSrc, Options: opts, Out: out, Log: log, User: user,
		Defines: o.defines}, nil
}

// defaultName is the artifact's file name: linux.json, floor-linux.json, linux-fast.json.
func defaultName(target, kind, codec string) string {
	switch {
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

// measure runs the program on every named target, one artifact each, and shows them side by side. Targets on
// different machines run in parallel; targets sharing a machine (the local one) run one after another, so that
// they do not disturb each other's numbers.
func measure(cmd *cobra.Command, o *runOptions, names []string, kind string, stdout, stderr io.Writer) error {
	cfg, err := config.Load(o.configFile)
	if err != nil {
		return err
	}
	disp := newDisplay(stderr, o.quiet, o.verbose)
	o.target.Log = disp
	opened := make([]targets.Target, len(names))
	for i, name := range names {
		if opened[i], err = targets.Open(cmd.Context(), name, cfg.Specs(), o.target); err != nil {
			for _, t := range opened[:i] {
				t.Close()
			}
			return err
		}
	}
	type result struct {
		art  *artifact.Artifact
		file string
		err  error
	}
	results := make([]result, len(names))
	groups := map[string][]int{}
	for i, t := range opened {
		groups[targets.Machine(t)] = append(groups[targets.Machine(t)], i)
	}
	var wg sync.WaitGroup
	for _, idx := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, i := range idx {
				a, file, err := measureOne(cmd, o, cfg, opened[i], kind, disp)
				results[i] = result{a, file, err}
			}
		}()
	}
	wg.Wait()
	var arts []*artifact.Artifact
	var files []string
	var failed []error
	for i, r := range results {
		if r.art != nil {
			arts, files = append(arts, r.art), append(files, r.file)
		}
		if r.err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", names[i], r.err))
		}
	}
	if len(arts) > 0 {
		if err := reports.Render(stdout, reports.Build(arts, files), "text"); err != nil {
			return err
		}
	}
	return errors.Join(failed...)
}

// measureOne runs one job on an opened target and closes it; it returns the artifact whenever one was written,
// even when the run failed.
func measureOne(cmd *cobra.Command, o *runOptions, cfg *config.Config, t targets.Target, kind string, disp *display) (*artifact.Artifact, string, error) {
	defer t.Close()
	job, err := o.job(cmd, cfg, t, kind, disp)
	if err != nil {
		return nil, "", err
	}
	label := defaultName(t.Name(), kind, job.Codec)
	job.Options.OnEvent = disp.track(strings.TrimSuffix(label, ".json"), len(job.Options.Cases))
	defer disp.finish(strings.TrimSuffix(label, ".json"))
	start := time.Now()
	a, err := job.Run(cmd.Context())
	if a == nil {
		return nil, "", err
	}
	fmt.Fprintf(disp, "wrote %s in %s\n", job.Out, time.Since(start).Round(100*time.Millisecond))
	if err == nil && !a.Complete {
		err = fmt.Errorf("%d of %d cases failed (see %s)", len(a.Failures), len(job.Options.Cases)-len(a.NotImplemented), job.Out)
	}
	return a, job.Out, err
}

// addMeasureFlags makes cmd a measuring command: its arguments are target names.
func addMeasureFlags(cmd *cobra.Command, o *runOptions, bridge bool) {
	o.register(cmd, bridge)
	cmd.ValidArgsFunction = targetCompletion(o)
	cmd.RegisterFlagCompletionFunc("cases", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return cases.Names(), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}

// targetCompletion completes target names: the built-in ones and the config's.
func targetCompletion(o *runOptions) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		cfg, err := config.Load(o.configFile)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return targets.Names(cfg.Specs()), cobra.ShellCompDirectiveNoFileComp
	}
}

func newFloorCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "floor TARGET...",
		Short: "Run the same cases written directly against the QuickJS C API: the floor to approach",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return measure(cmd, o, args, artifact.ProgramFloor, stdout, stderr)
		},
	}
	addMeasureFlags(cmd, o, false)
	return cmd
}
