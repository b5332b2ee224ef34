package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/hint"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Tool names the tool in artifacts; main sets it to include the version.
var Tool = "bench-bridge"

// Job is one program measured on one target, ending in one artifact file.
type Job struct {
	Target     targets.Target // opened and closed by the caller
	Kind       string         // artifact.ProgramBridge or artifact.ProgramFloor
	Codec      string         // bridge codec
	QuickJSSrc string         // explicit QuickJS source tree, or "" for the pinned release
	Options    Options
	Out        string // the artifact's path
	Log        io.Writer
	// User, when set, is a user's bridge to build and measure instead of the reference bridge.
	User *UserBridge
	// Defines are extra compile-time options of the reference bridge or the floor (see build.BuildProgram).
	Defines []string
	// Engine is the engine of the floor: "" or engines.Default for QuickJS's, else one of build.EngineFloors.
	Engine string
	// Builder, when set, makes the program instead of Build: the command layer's tests give programs of their own.
	Builder func(context.Context, *Job) (*build.Binary, error)
}

// UserBridge is a bench program of the user's, declared in the config.
type UserBridge struct {
	Name, Dir, Build, Binary string
	// Rev, when set, is the revision of the bridge's git repository to build it at (NAME@REV).
	Rev string
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
func (j *Job) Build(ctx context.Context) (*build.Binary, error) {
	tc, err := j.Toolchain()
	if err != nil {
		return nil, err
	}
	if j.Engine != "" && j.Engine != engines.Default && j.User == nil && j.Kind == artifact.ProgramFloor {
		return build.BuildEngineFloor(ctx, tc, j.Engine, j.Log)
	}
	if u := j.User; u != nil && u.Build == "" && u.Rev == "" {
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
	if u := j.User; u != nil && u.Rev != "" {
		rev, err := build.ResolveRevision(ctx, u.Dir, u.Rev)
		if err != nil {
			return nil, fmt.Errorf("bridge %s@%s: %w", u.Name, u.Rev, err)
		}
		return build.UserBridgeAt(ctx, tc, lib, u.Name, u.Dir, u.Build, u.Binary, rev, j.Log)
	}
	if u := j.User; u != nil {
		return build.UserBridge(ctx, tc, lib, u.Name, u.Dir, u.Build, u.Binary, j.Log)
	}
	return build.BuildProgram(ctx, tc, lib, j.Kind, j.Codec, j.Log, j.Defines...)
}

// Binary is the job's program built: from Builder when set, else from Build.
func (j *Job) Binary(ctx context.Context) (*build.Binary, error) {
	if j.Builder != nil {
		return j.Builder(ctx, j)
	}
	return j.Build(ctx)
}

// prepared is a job whose program is built and pushed, ready to run processes as one program of a session.
type prepared struct {
	job    *Job
	prog   *build.Binary
	remote string
	art    *artifact.Artifact
	m      *measurement
}

// prepare builds the program, reads the device and pushes the program with push; the caller closes the target.
func (j *Job) prepare(ctx context.Context, push func(context.Context, string) (string, error)) (*prepared, error) {
	prog, err := j.Binary(ctx)
	if err != nil {
		return nil, err
	}
	dev, err := j.Target.Device(ctx)
	if err != nil {
		return nil, err
	}
	dev.Compiler, dev.CFlags, dev.QuickJS = prog.Compiler, prog.CFlags, engines.QuickJSVersion
	targets.CheckProgram(&dev, prog.Path)
	sum, err := fileSHA256(prog.Path)
	if err != nil {
		return nil, err
	}
	remote, err := push(ctx, prog.Path)
	if err != nil {
		return nil, err
	}
	if tc, err := j.Toolchain(); err == nil && tc.Name != build.Host().Name && j.User == nil {
		if err := checkLibraries(ctx, j.Target, prog); err != nil {
			return nil, err
		}
	}
	if j.Options.Instructions {
		if err := CheckValgrind(ctx, j.Target); err != nil {
			return nil, err
		}
	}
	a := &artifact.Artifact{
		Schema: artifact.Schema, Tool: Tool, Target: j.Target.Name(), Kind: prog.Kind, Codec: prog.Codec,
		Device: dev,
		Settings: artifact.Settings{Samples: j.Options.Samples, MinTimeNs: j.Options.MinTime.Nanoseconds(),
			WarmupNs: j.Options.Warmup.Nanoseconds(), Slowdown: j.Options.Slowdown, SlowdownSteps: j.Options.SlowdownSteps, Defines: j.Defines,
			BinarySHA256: sum},
		Cases: []artifact.Case{}, Failures: []artifact.Failure{}, Warnings: append([]string{}, dev.Warnings...),
	}
	listed, err := ListCases(ctx, j.Target, remote)
	if err != nil {
		return nil, err
	}
	asked := j.Options.Cases
	j.Options.Cases, a.NotImplemented = Implemented(asked, listed)
	if len(j.Options.Cases) == 0 {
		return nil, fmt.Errorf("the program implements none of the cases asked for (%s); its list: %s",
			strings.Join(asked, ", "), strings.Join(listed, ", "))
	}
	return &prepared{job: j, prog: prog, remote: remote, art: a, m: newMeasurement(j.Target, remote, j.Options)}, nil
}

// finish assembles and writes the artifact; runErr is what broke the session, if anything.
func (p *prepared) finish(ctx context.Context, runErr error) (*artifact.Artifact, error) {
	j, a, raw := p.job, p.art, p.m.Raw
	recordProvenance(a, p.prog, raw.Meta)
	Assemble(a, raw, j.Options.Cases)
	checkSettings(a, raw, j.Options)
	if j.Options.Instructions && runErr == nil {
		runErr = j.countInstructions(ctx, p.remote, a)
	}
	if runErr != nil && a.Complete {
		// Every case may have been measured once, and still the processes asked for were not all run.
		a.Complete = false
		a.Warnings = append(a.Warnings, fmt.Sprintf("the run broke in process %d of %d: %v", len(raw.Processes),
			j.Options.Runs, runErr))
	}
	if err := artifact.Write(j.Out, a); err != nil {
		// Nothing was written: no artifact to show or to say "wrote" of.
		return nil, errors.Join(runErr, err)
	}
	if runErr != nil {
		return a, fmt.Errorf("%w (partial artifact with %d cases written to %s)", runErr, len(a.Cases), j.Out)
	}
	return a, nil
}

// BinarySHA256 builds (or finds in the cache) the job's program and returns its sha256: whether it is the program
// an artifact was measured with.
func (j *Job) BinarySHA256(ctx context.Context) (string, error) {
	prog, err := j.Binary(ctx)
	if err != nil {
		return "", err
	}
	return fileSHA256(prog.Path)
}

func fileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// countInstructions adds each measured case's instructions per op to a; a case that cannot be counted makes the
// artifact incomplete.
func (j *Job) countInstructions(ctx context.Context, remote string, a *artifact.Artifact) error {
	var names []string
	for _, c := range a.Cases {
		names = append(names, c.Name)
	}
	fmt.Fprintf(j.Log, "counting instructions of %d cases under callgrind on %s\n", len(names), a.Target)
	counts, err := MeasureInstructions(ctx, j.Target, remote, names, j.Options.Progress, j.Options.slowdownArgs()...)
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

// checkLibraries makes sure a device other than this machine has the shared libraries a dynamically linked program
// of ours needs (a floor over a library engine of this machine, run on a board of its architecture), so that a board
// without them is named with the packages to install, not by its loader's message. A static program (every other
// program for a device) needs none, and nothing is asked of the device.
func checkLibraries(ctx context.Context, t targets.Target, prog *build.Binary) error {
	missing, err := targets.MissingLibraries(ctx, t, build.Needs(prog.Path))
	if err != nil || len(missing) == 0 {
		return err
	}
	pkgs := build.LibraryPackages(ctx, missing)
	fix := "install them on the device, or measure on this machine"
	if len(pkgs) > 0 {
		fix = "on a Debian device: apt-get install " + strings.Join(pkgs, " ") + " (this machine's packages of them); or measure on this machine"
	}
	return hint.With(fmt.Errorf("%s: the device has no %s, which the %s program links (bench-bridge doctor checks them on a board)",
		t.Name(), strings.Join(missing, ", "), prog.Kind), fix)
}
