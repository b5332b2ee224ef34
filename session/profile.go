package session

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/profile"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Profiling is `bench-bridge profile` on one opened target: a program built, pushed and run under a profiler for one
// case, and, with a base program (--diff), the differential flame graph of what the program added to it.
type Profiling struct {
	Config  *config.Config
	Target  targets.Target
	Case    string
	Seconds float64
	Tool    string // the profiler; "" for the target's best
	OutDir  string
	Builder BuildFunc
	Log     io.Writer
}

// Run profiles prog of kind (after base, when it is given, with the same profiler) and returns its result; with a
// base it writes the differential flame graph beside the raw output.
func (p Profiling) Run(ctx context.Context, kind string, prog Program, base *ProgramArg, choice Choice) (*profile.Result, error) {
	var first *profile.Result
	if base != nil {
		var err error
		if first, err = p.base(ctx, *base, choice); err != nil {
			return nil, err
		}
		p.Tool = first.Tool // the same profiler for both, whose frames are named alike
	}
	res, err := p.one(ctx, kind, prog, p.OutDir)
	if err != nil || first == nil {
		return res, err
	}
	out := strings.TrimSuffix(res.Raw, ".txt") + "-diff.svg"
	title := fmt.Sprintf("%s on %s (%s): what the program added to %s (red: a larger share, blue: a smaller one)", p.Case, p.Target.Name(), res.Tool, base.Arg)
	if err := profile.WriteFlameFile(out, title, res.Stacks, first.Stacks); err != nil {
		return nil, err
	}
	fmt.Fprintf(p.Log, "differential flame graph: %s\n", out)
	return res, nil
}

// base profiles --diff's program first, for the differential flame graph: the program of the command's choice but
// for its codec or bridge, without defines.
func (p Profiling) base(ctx context.Context, arg ProgramArg, c Choice) (*profile.Result, error) {
	if arg.Slowdown > 0 {
		return nil, fmt.Errorf("--diff %s: profile runs the case's loop without options (no slowdown)", arg.Arg)
	}
	c.Codec, c.Bridge, c.CodecSet, c.Defines = arg.Codec, arg.Bridge, false, nil
	if arg.Codec == "" {
		c.Codec = "json"
	}
	prog, err := c.Resolve(p.Config)
	if err != nil {
		return nil, fmt.Errorf("--diff %s: %w", arg.Arg, err)
	}
	fmt.Fprintf(p.Log, "profiling %s first, for the differential flame graph\n", arg.Arg)
	res, err := p.one(ctx, arg.Kind, prog, filepath.Join(p.OutDir, "diff-base"))
	if err != nil {
		return nil, err
	}
	if len(res.Stacks) == 0 {
		return nil, fmt.Errorf("--diff: the profile of %s by %s has no stacks (--tool perf, simpleperf or itimer have them)", arg.Arg, res.Tool)
	}
	return res, nil
}

// one builds and pushes prog, profiles the case, and writes its flame graph and pprof profile beside the raw output
// when the profiler gives stacks (perf, simpleperf, itimer).
func (p Profiling) one(ctx context.Context, kind string, prog Program, outDir string) (*profile.Result, error) {
	job := Plan{Kind: kind, Program: prog, Builder: p.Builder}.Job(p.Target, p.Log)
	built, err := job.Binary(ctx)
	if err != nil {
		return nil, err
	}
	device, err := p.Target.Device(ctx)
	if err != nil {
		return nil, err
	}
	targets.CheckProgram(&device, built.Path)
	remote, err := p.Target.Push(ctx, built.Path)
	if err != nil {
		return nil, err
	}
	res, err := profile.Run(ctx, p.Target, remote, device, profile.Options{Case: p.Case, Seconds: p.Seconds, Tool: p.Tool, OutDir: outDir,
		Log: p.Log, Binary: built.Path})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(p.Log, "raw output: %s\n", res.Raw)
	if res.Data != "" {
		fmt.Fprintf(p.Log, "data file: %s\n", res.Data)
	}
	if len(res.Stacks) == 0 {
		return res, nil
	}
	svg, pprof, err := res.WritePictures(fmt.Sprintf("%s on %s (%s)", p.Case, p.Target.Name(), res.Tool))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(p.Log, "flame graph: %s\npprof profile: %s (go tool pprof, speedscope)\n", svg, pprof)
	return res, nil
}
