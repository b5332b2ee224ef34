package runner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Tool names the tool in artifacts; main sets it to include the version.
var Tool = "bench-bridge"

// Job is one program measured on one target, ending in one artifact file.
type Job struct {
	Target     targets.Target
	Kind       string // artifact.ProgramBridge or artifact.ProgramFloor
	Codec      string // bridge codec
	QuickJSSrc string // explicit QuickJS source tree, or "" for the pinned release
	Options    Options
	Out        string // the artifact's path
	Log        io.Writer
	// User, when set, is a user's bridge to build and measure instead of the reference bridge.
	User *UserBridge
	// Defines are extra compile-time options of the reference bridge or the floor (see build.BuildProgram).
	Defines []string
}

// UserBridge is a bench program of the user's, declared in the config.
type UserBridge struct {
	Name, Dir, Build, Binary string
}

// Toolchain is what builds the job's program: the one its target's platform calls for.
func (j *Job) Toolchain() (build.Toolchain, error) {
	p := j.Target.Platform()
	tc, err := build.ForPlatform(p.Toolchain, p.ABI)
	if err != nil {
		return build.Toolchain{}, fmt.Errorf("target %s: %w", j.Target.Name(), err)
	}
	return tc, nil
}

// Build fetches QuickJS if needed and builds (or finds in the cache) the job's program for its target's toolchain.
func (j *Job) Build(ctx context.Context) (*build.Program, error) {
	tc, err := j.Toolchain()
	if err != nil {
		return nil, err
	}
	if u := j.User; u != nil && u.Build == "" {
		// A prebuilt program: nothing to build, so no QuickJS to fetch or build either.
		return build.UserBridge(ctx, tc, nil, u.Name, u.Dir, u.Build, u.Binary, j.Log)
	}
	src, err := build.QuickJSSource(ctx, j.QuickJSSrc, j.Log)
	if err != nil {
		return nil, err
	}
	lib, err := build.BuildQuickJS(ctx, tc, src, j.Log)
	if err != nil {
		return nil, err
	}
	if u := j.User; u != nil {
		return build.UserBridge(ctx, tc, lib, u.Name, u.Dir, u.Build, u.Binary, j.Log)
	}
	return build.BuildProgram(ctx, tc, lib, j.Kind, j.Codec, j.Log, j.Defines...)
}

// Run builds the program, runs it and writes the artifact. When the run fails part-way, the artifact is still
// written, with what was measured and complete=false, and the error says what broke.
func (j *Job) Run(ctx context.Context) (*artifact.Artifact, error) {
	prog, err := j.Build(ctx)
	if err != nil {
		return nil, err
	}
	dev, err := j.Target.Device(ctx)
	if err != nil {
		return nil, err
	}
	dev.Compiler, dev.CFlags, dev.QuickJS = prog.Compiler, prog.CFlags, build.QuickJSVersion
	targets.CheckProgram(&dev, prog.Path)
	remote, err := j.Target.Push(ctx, prog.Path)
	if err != nil {
		return nil, err
	}
	defer j.Target.Close()
	if j.Options.Instructions {
		if err := CheckValgrind(ctx, j.Target); err != nil {
			return nil, err
		}
	}

	a := &artifact.Artifact{
		Schema: artifact.Schema, Tool: Tool, Target: j.Target.Name(), Program: prog.Kind, Codec: prog.Codec,
		Device:    dev,
		Settings:  artifact.Settings{Samples: j.Options.Samples, MinTimeNs: j.Options.MinTime.Nanoseconds(), WarmupNs: j.Options.Warmup.Nanoseconds()},
		StartedAt: time.Now().UTC(),
		Cases:     []artifact.Case{}, Failures: []artifact.Failure{}, Warnings: append([]string{}, dev.Warnings...),
	}
	a.Settings.Defines = j.Defines
	listed, err := ListCases(ctx, j.Target, remote)
	if err != nil {
		return nil, err
	}
	opts := j.Options
	opts.Cases, a.NotImplemented = Implemented(j.Options.Cases, listed)
	if len(opts.Cases) == 0 {
		return nil, fmt.Errorf("the program implements none of the cases asked for (%s); its list: %s",
			strings.Join(j.Options.Cases, ", "), strings.Join(listed, ", "))
	}
	fmt.Fprintf(j.Log, "running %s on %s: %d cases, %d samples of at least %s each\n", a.Label(), a.Target,
		len(opts.Cases), opts.Samples, opts.MinTime)
	raw, runErr := Measure(ctx, j.Target, remote, opts)
	recordProvenance(a, prog, raw.Meta)
	Assemble(a, raw, opts.Cases)
	checkSettings(a, raw, opts)
	if j.Options.Instructions && runErr == nil {
		runErr = j.countInstructions(ctx, remote, a)
	}
	if err := artifact.Write(j.Out, a); err != nil {
		return a, err
	}
	if runErr != nil {
		return a, fmt.Errorf("%w (partial artifact with %d cases written to %s)", runErr, len(a.Cases), j.Out)
	}
	return a, nil
}

// countInstructions adds each measured case's instructions per op to a; a case that cannot be counted makes the
// artifact incomplete.
func (j *Job) countInstructions(ctx context.Context, remote string, a *artifact.Artifact) error {
	var names []string
	for _, c := range a.Cases {
		names = append(names, c.Name)
	}
	fmt.Fprintf(j.Log, "counting instructions of %d cases under callgrind on %s\n", len(names), a.Target)
	counts, err := MeasureInstructions(ctx, j.Target, remote, names, j.Options.Progress)
	for i := range a.Cases {
		if v, ok := counts[a.Cases[i].Name]; ok {
			a.Cases[i].InstructionsPerOp = &v
		}
	}
	if err != nil {
		a.Complete = false
		a.Warnings = append(a.Warnings, err.Error())
	}
	return err
}
