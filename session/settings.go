package session

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/runner"
)

// What a measuring run records (a measuring command's --metric): the times, or the times and then instructions per
// op under callgrind. What a gate judges is another role of the word, gate.Metrics.
const (
	RecordTimes        = "time"
	RecordInstructions = "instructions"
)

// Choice is which program a command builds, as its build flags say: the reference bridge's codec or a bridge of the
// config (NAME, or NAME@REV), QuickJS's source and compile-time options.
type Choice struct {
	QuickJSSrc string
	Codec      string
	Bridge     string
	Defines    []string

	QuickJSSrcSet, CodecSet bool // given on the command line, so not taken from the config
}

// Settings are how a command measures, as its flags say, before the config fills in what they left unset.
type Settings struct {
	Cases         string // comma-separated; "" for all
	Samples, Runs int
	Seed          uint64
	Slowdown      float64
	SlowdownSteps int
	MinTime       time.Duration
	Warmup        time.Duration
	Stall         time.Duration
	Record        string // RecordTimes or RecordInstructions
	CPU           string
	LockClocks    bool
	Cooldown      time.Duration

	SamplesSet, MinTimeSet bool // given on the command line, so not taken from the config
}

// NewPlan checks the program and the settings against the config: the plan of a command's jobs, of kind bridge or
// floor, its artifacts at out ("" for the default name in outDir, or in the config's out_dir).
func NewPlan(kind string, c Choice, s Settings, out, outDir string, cfg *config.Config) (Plan, error) {
	p := Plan{Kind: kind, Out: out, OutDir: outDir}
	var err error
	if p.Program, err = c.Resolve(cfg); err != nil {
		return p, err
	}
	if p.Options, err = s.Options(cfg); err != nil {
		return p, err
	}
	if cfg.Defaults.OutDir != "" {
		p.OutDir = cfg.Resolve(cfg.Defaults.OutDir)
	}
	return p, nil
}

// Resolve checks the choice against the config: the program every job of the command builds.
func (c Choice) Resolve(cfg *config.Config) (Program, error) {
	p := Program{Codec: c.Codec, QuickJSSrc: c.QuickJSSrc, Defines: slices.Clone(c.Defines)}
	if !c.QuickJSSrcSet && cfg.QuickJS.Src != "" {
		p.QuickJSSrc = cfg.Resolve(cfg.QuickJS.Src)
	}
	if c.Bridge == "" {
		return p, nil
	}
	name, rev, _ := strings.Cut(c.Bridge, "@") // rev: a commit, tag, branch, origin/main or merge-base:BRANCH
	if rev == "" && name != c.Bridge {
		return p, fmt.Errorf("--bridge %s: no revision after @ (want NAME@REV: a commit, tag, branch or %sBRANCH)", c.Bridge, build.MergeBasePrefix)
	}
	if _, err := cfg.Bridge(name); err != nil {
		return p, err
	}
	user, err := Bridge(cfg, name, rev)
	if err != nil {
		return p, fmt.Errorf("--bridge %s: %w", c.Bridge, err)
	}
	if c.CodecSet {
		return p, fmt.Errorf("--codec %s and --bridge %s: --codec picks the reference bridge's codec; a bridge of yours has its own", c.Codec, c.Bridge)
	}
	if len(c.Defines) > 0 {
		return p, fmt.Errorf("--define applies to the reference bridge and the floor, not to --bridge %s (its build command sets its flags)", c.Bridge)
	}
	p.Codec, p.User = name, user
	return p, nil
}

// Options checks the settings and turns them, with the config's defaults for what they left unset, into the
// runner's options. The result is a value: each job gets its own copy.
func (s Settings) Options(cfg *config.Config) (runner.Options, error) {
	if !s.SamplesSet && cfg.Defaults.Samples > 0 {
		s.Samples = cfg.Defaults.Samples
	}
	if !s.MinTimeSet && cfg.Defaults.MinTime.Duration > 0 {
		s.MinTime = cfg.Defaults.MinTime.Duration
	}
	opts := runner.DefaultOptions()
	names, err := cases.Select(s.Cases)
	if err != nil {
		return opts, err
	}
	switch {
	case s.Samples < 1:
		return opts, fmt.Errorf("--samples must be at least 1, got %d", s.Samples)
	case s.Runs < 1:
		return opts, fmt.Errorf("--runs must be at least 1, got %d", s.Runs)
	case !(s.Slowdown >= 0 && s.Slowdown <= 10):
		return opts, fmt.Errorf("--slowdown %v: want a share between 0 and 10, like 0.10", s.Slowdown)
	case s.SlowdownSteps < 0 || (s.SlowdownSteps > 0 && s.Slowdown > 0):
		return opts, fmt.Errorf("--slowdown-steps %d: want a positive count, and not with --slowdown", s.SlowdownSteps)
	case s.MinTime <= 0:
		return opts, fmt.Errorf("--min-time must be positive, got %s", s.MinTime)
	case s.Record != RecordTimes && s.Record != RecordInstructions:
		return opts, fmt.Errorf("--metric %q: want %s or %s", s.Record, RecordTimes, RecordInstructions)
	case !validCPU(s.CPU):
		return opts, fmt.Errorf("--cpu %q: want a core's number, big or little", s.CPU)
	case s.Cooldown < 0:
		return opts, fmt.Errorf("--cooldown must not be negative, got %s", s.Cooldown)
	}
	opts.CPU, opts.LockClocks, opts.Cooldown = s.CPU, s.LockClocks, s.Cooldown
	opts.Cases, opts.Samples, opts.MinTime, opts.Stall = names, s.Samples, s.MinTime, s.Stall
	opts.Runs, opts.Seed, opts.Slowdown, opts.SlowdownSteps = s.Runs, s.Seed, s.Slowdown, s.SlowdownSteps
	opts.Warmup = s.Warmup
	if opts.Warmup <= 0 {
		opts.Warmup = s.MinTime
	}
	opts.Instructions = s.Record == RecordInstructions
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
