package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/targets"
)

// ConfirmRounds is the fewest rounds of a rerun beside the baseline's program: as many pairs as a compare of fixed
// rounds, which the paired test needs.
const ConfirmRounds = 40

// Rerun is what gate --confirm's reruns need: a way to open the current artifact's target, the config its programs
// are built with, a builder (nil: the real one), and where the runs say what they do.
type Rerun struct {
	Open    OpenFunc
	Config  *config.Config
	Builder BuildFunc
	Log     io.Writer
}

// Confirm reruns the flagged cases of res and keeps only the regressions the rerun shows too. When the
// baseline's program can still be built (this tree builds the very binary the baseline measured), the rerun is a
// session of both programs, their processes alternating, judged by the paired test; otherwise the current program
// reruns alone and is compared with the baseline as before. The rerun's artifacts go to a temporary directory that
// is removed, and the target it opens is closed, on every path. The rerun holds the device's lease, waiting until
// no other run holds it.
func (r Rerun) Confirm(ctx context.Context, res *analysis.Result, p analysis.Pair, opts analysis.Options) (err error) {
	if opts.Metric != analysis.Time {
		what := map[string]string{analysis.Instructions: "instruction", analysis.Allocations: "allocation"}[opts.Metric]
		res.Notes = append(res.Notes, analysis.Warning{Kind: analysis.Confirmation, Text: "--confirm: " + what + " counts repeat exactly, there is nothing to rerun"})
		return nil
	}
	stderr := r.Log
	base, cur := p.Baseline.Artifact, p.Current.Artifact
	dir, err := os.MkdirTemp("", "bench-bridge-confirm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	t, err := r.Open(ctx, cur.Target, r.Config.Specs(), targets.Overrides{Log: stderr})
	if err != nil {
		return err
	}
	defer t.Close()
	ctx, release, err := Hold(0, stderr)(ctx, t)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, release()) }()
	names := append([]string{cases.RefCase}, res.Flagged()...)
	curJob, err := r.Job(t, cur, names, filepath.Join(dir, "b-"+filepath.Base(p.Current.File)))
	if err != nil {
		return err
	}
	baseJob, err := r.Job(t, base, names, filepath.Join(dir, "a-"+filepath.Base(p.Baseline.File)))
	if err != nil {
		return err
	}
	if why := analysis.TooFewRounds(curJob.Options.Runs, false, opts); why != "" {
		fmt.Fprintf(stderr, "bench-bridge: warning: --confirm: %s\n", why) // an alpha far below a compare's
	}
	if why := buildableBaseline(ctx, baseJob, base); why != "" {
		res.Notes = append(res.Notes, analysis.Warning{Kind: analysis.Confirmation, Text: "--confirm: " + why + ": the current program reran alone"})
		fmt.Fprintf(stderr, "gate: %s: rerunning %s to confirm\n", res.Label, strings.Join(res.Flagged(), ", "))
		arts, _, err := Run(ctx, []*runner.Job{curJob}, stderr, nil)
		if err != nil {
			return err
		}
		analysis.Confirm(res, base, arts[0], "the current program alone (its artifact not kept)", opts)
		return nil
	}
	fmt.Fprintf(stderr, "gate: %s: rerunning %s beside the baseline's program to confirm\n", res.Label, strings.Join(res.Flagged(), ", "))
	arts, files, err := Run(ctx, []*runner.Job{baseJob, curJob}, stderr, nil)
	if err != nil {
		return err
	}
	paired, err := analysis.JudgePaired(arts[0], arts[1], files[0], files[1], opts)
	if err != nil {
		return err
	}
	analysis.ConfirmPaired(res, paired, "beside the baseline's program, in one session (its artifacts not kept)")
	return nil
}

// buildableBaseline says why the baseline's program cannot run beside the current one, or "" when it can: this tree
// must build the binary the baseline measured.
func buildableBaseline(ctx context.Context, job *runner.Job, base *artifact.Artifact) string {
	if base.Settings.BinarySHA256 == "" {
		return "the baseline does not record its binary"
	}
	sum, err := job.BinarySHA256(ctx)
	if err != nil {
		return fmt.Sprintf("the baseline's program does not build (%v)", err)
	}
	if sum != base.Settings.BinarySHA256 {
		return "this tree builds another binary than the baseline's"
	}
	return ""
}

// Job is a job on t that measures names with the program, build options and settings a was made with (programOf),
// as every measuring command makes its jobs (Plan.Job).
func (r Rerun) Job(t targets.Target, a *artifact.Artifact, names []string, out string) (*runner.Job, error) {
	prog, err := programOf(a, r.Config)
	if err != nil {
		return nil, err
	}
	opts := runner.DefaultOptions()
	opts.Cases = names
	if s := a.Settings; s.Samples > 0 && s.MinTimeNs > 0 {
		opts.Samples, opts.MinTime, opts.Warmup = s.Samples, time.Duration(s.MinTimeNs), time.Duration(s.WarmupNs)
	}
	opts.Runs = max(a.Settings.Runs, opts.Runs, ConfirmRounds) // as many pairs as a compare: the paired test needs them
	opts.Slowdown, opts.SlowdownSteps = a.Settings.Slowdown, a.Settings.SlowdownSteps
	p := Plan{Kind: a.Kind, Program: prog, Builder: r.Builder, Options: opts, Out: out}
	if a.Kind == artifact.ProgramFloor && a.Engine.Name != engines.Default {
		p.Engine = a.Engine.Name // another engine's floor is measured again on that engine, not on QuickJS
	}
	return p.Job(t, r.Log), nil
}

// programOf is the program a measured: the reference bridge's codec or the floor with a's defines, or the config's
// bridge of a's name, at the commit a was built at.
func programOf(a *artifact.Artifact, cfg *config.Config) (Program, error) {
	p := Program{Codec: a.Codec, Defines: slices.Clone(a.Settings.Defines)}
	if cfg.QuickJS.Src != "" {
		p.QuickJSSrc = cfg.Resolve(cfg.QuickJS.Src)
	}
	if _, declared := cfg.Bridges[a.Codec]; !declared || a.Kind != artifact.ProgramBridge || slices.Contains(build.Codecs, a.Codec) {
		return p, nil
	}
	if len(p.Defines) > 0 {
		return p, fmt.Errorf("%s: defines apply to the reference bridge and the floor, not to bridges.%s (its build command sets its flags)", a.Label(), a.Codec)
	}
	ub, err := Bridge(cfg, a.Codec, a.Settings.Commit) // a baseline built at a commit (NAME@REV) is built at that commit again
	p.User = ub
	return p, err
}

// Bridge is the config's bridge name at revision rev ("" for its working tree), as a job builds it.
func Bridge(cfg *config.Config, name, rev string) (*runner.UserBridge, error) {
	ub, err := cfg.Bridge(name)
	if err != nil {
		return nil, err
	}
	if rev != "" && ub.Build == "" {
		return nil, fmt.Errorf("bridges.%s has no build command, so there is nothing to build at %s (add build = \"...\")", name, rev)
	}
	return &runner.UserBridge{Name: name, Dir: cfg.Dir(), Build: ub.Build, Binary: ub.Binary, Rev: rev}, nil
}
