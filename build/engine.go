package build

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/hint"
)

// The floor of an engine besides QuickJS is built from its entry in engines.All: its Floor (the file, the define that
// picks the harness's adapter, the define of its version, whether it is a Node addon) and the engine it is built
// with: a release pinned as Debian's source package (Pinned), built from the files Lib of its tree for every toolchain
// and linked statically like QuickJS, with its headers in Include; or this machine's library, a pkg-config module
// (the first of several that this machine has); or, for a Node addon (V8), Node's headers, the program then being
// node running the addon (addonLauncher); or nothing but the harness, for a floor that is the whole engine. The floor
// of an engine embedded in Go is a Go program instead (BuildGoFloor, gofloor.go).

// addonLauncher is the program of an addon's floor: node loading the addon beside it and calling its main with the
// command line (the harness's main, renamed; floor/floor_v8.cc).
const addonLauncher = `#!/bin/sh
exec node -e 'process.exitCode = require(process.argv[1]).main(process.argv.slice(2))' "$0.node" "$0" "$@"
`

// EngineFloors are the engines besides QuickJS that bench-bridge has a floor in C or C++ for, over the JavaScript
// catalogue, sorted; GoFloors are those whose floor is a Go program, WasmFloors those whose floor hosts the
// WebAssembly guest.
func EngineFloors() []string {
	return floorsWhere(func(f *engines.Floor) bool { return f.GoPackage == "" && !f.WasmGuest })
}

// WasmFloors are the engines whose floor in C or C++ hosts the WebAssembly guest catalogue (engines.Floor's
// WasmGuest), sorted; a Go floor that hosts it is among GoFloors.
func WasmFloors() []string {
	return floorsWhere(func(f *engines.Floor) bool { return f.WasmGuest && f.GoPackage == "" })
}

// floorsWhere are the engines besides QuickJS whose floor is one of those, sorted.
func floorsWhere(is func(*engines.Floor) bool) []string {
	var names []string
	for _, e := range engines.All {
		if e.Floor != nil && e.Name != engines.Default && is(e.Floor) {
			names = append(names, e.Name)
		}
	}
	slices.Sort(names)
	return names
}

// engineFloor is the engine of that name, one of EngineFloors, GoFloors or WasmFloors.
func engineFloor(name string) (engines.Engine, error) {
	if e, err := engines.Lookup(name); err == nil && e.Floor != nil && name != engines.Default {
		return e, nil
	}
	return engines.Engine{}, fmt.Errorf("no floor for engine %q (have %s, %s)", name, engines.Default,
		strings.Join(slices.Concat(EngineFloors(), GoFloors(), WasmFloors()), ", "))
}

// linksHostLibrary says whether e's programs link a library of this machine (a pkg-config module, or node's ABI),
// which only this machine, or a board of its architecture that has the library, can run.
func linksHostLibrary(e engines.Engine) bool {
	return e.Pinned == nil && (len(e.PkgConfig) > 0 || e.Floor.NodeAddon)
}

// BuildEngineFloor builds the floor of engine (one of EngineFloors, GoFloors or WasmFloors) for tc, or returns the
// cached one built from the same sources, library and flags. An engine built from its pinned source, or embedded in
// Go, builds for every toolchain; one that is this machine's library only with the host's; one whose library a Go
// module carries for the toolchains it has a library for.
func BuildEngineFloor(ctx context.Context, tc Toolchain, engine string, log io.Writer) (*Binary, error) {
	e, err := engineFloor(engine)
	if err != nil {
		return nil, err
	}
	if e.Floor.GoPackage != "" {
		return BuildGoFloor(ctx, tc, e, log)
	}
	if linksHostLibrary(e) && tc.Name != Host().Name {
		// A board of this machine's architecture (an ssh board's x86_64 toolchain on an x86_64 machine) runs the
		// program this machine builds against its own library, linked dynamically: the runner checks that the board
		// has the library (runner's checkLibraries). Another architecture would need the library built for it.
		if e.Floor.NodeAddon {
			return nil, fmt.Errorf("the %s floor is an addon of this machine's node (two files, and node's own ABI), so it runs on this machine only, not with the %s toolchain", engine, tc.Name)
		}
		if tc.NativeOn != runtime.GOARCH {
			return nil, fmt.Errorf("the %s floor links this machine's library, so it runs on this machine and on boards of its architecture (%s) that have the library, not with the %s toolchain",
				engine, runtime.GOARCH, tc.Name)
		}
		tc = Host()
	}
	if e.Library != nil {
		// Refused before anything is looked for: a target the module has no library for.
		if _, err := moduleLibrary(engine, e.Library, tc); err != nil {
			return nil, err
		}
	}
	compiler, err := tc.check(ctx)
	if err != nil {
		return nil, err
	}
	var flags engineFlags
	switch {
	case e.Pinned != nil:
		flags, err = buildPinned(ctx, tc, e, log)
	case e.Library != nil:
		flags, err = libraryFlags(ctx, tc, e, log)
	default:
		flags, err = hostFlags(ctx, e)
	}
	if err != nil {
		return nil, err
	}
	if e.Pinned != nil {
		flags.compile = append([]string{"-D" + e.Floor.Define}, flags.compile...)
	}
	name := artifact.ProgramFloor + "-" + engine
	// The flags recorded are those that change the program; the pinned engine's headers are in the cache.
	prog := &Binary{Kind: artifact.ProgramFloor, Compiler: compiler, CFlags: strings.Join(slices.Concat(tc.CFlags, flags.compile), " ")}
	compile := flags.compile
	if flags.include != "" {
		compile = append(slices.Clone(compile), "-I", flags.include)
	}
	in := linkInputs{name: name, sources: []string{benchbridge.EngineCases, e.Floor.File}, read: floorReader(e.Floor),
		compile: compile, link: flags.link,
		key: []string{compiler, strings.Join(tc.CFlags, " "), strings.Join(tc.LDFlags, " "), flags.version}}
	if e.Floor.WasmGuest {
		if in, err = withWasmGuest(ctx, in, log); err != nil {
			return nil, err
		}
	}
	if !e.Floor.NodeAddon {
		prog.Path, err = linkCached(ctx, tc, in, log)
		return prog, err
	}
	in.name, in.sources = in.name+".node", append(in.sources, benchbridge.NodeAddon)
	addon, err := linkCached(ctx, tc, in, log)
	if err != nil {
		return nil, err
	}
	prog.Path = strings.TrimSuffix(addon, ".node")
	if err := os.WriteFile(prog.Path+".tmp", []byte(addonLauncher), 0o755); err != nil {
		return nil, err
	}
	return prog, os.Rename(prog.Path+".tmp", prog.Path)
}

// floorReader reads a program's sources: f's file from where f says (engines.Floor.Files), the rest from the
// embedded sources.
func floorReader(f *engines.Floor) func(name string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if name == f.File && f.Files != nil {
			return fs.ReadFile(f.Files, name)
		}
		return benchbridge.CSources.ReadFile(name)
	}
}

// EngineCompileFlags gives what compiles and links a program against engine (one of EngineFloors but an addon's)
// for tc, as its floor is built: a pinned engine's library built (or found in the cache) from its release, with its
// headers and the define of its version where its header lacks it; or this machine's library, through pkg-config,
// with the define of the harness's adapter for it (-DBB_ENGINE_JSC, -DBB_ENGINE_NONE).
func EngineCompileFlags(ctx context.Context, tc Toolchain, engine string, log io.Writer) (compile, link []string, err error) {
	e, err := engineFloor(engine)
	switch {
	case err != nil:
		return nil, nil, err
	case e.Floor.NodeAddon:
		return nil, nil, fmt.Errorf("the %s floor is an addon of node: it runs inside node, not as a program of its own", engine)
	case e.Floor.GoPackage != "":
		return nil, nil, fmt.Errorf("the %s floor is a Go program: nothing of it is compiled or linked as C", engine)
	case e.Library != nil:
		flags, err := libraryFlags(ctx, tc, e, log)
		return append(flags.compile, "-I", flags.include), flags.link, err
	case e.Pinned == nil:
		flags, err := hostFlags(ctx, e)
		return flags.compile, flags.link, err
	}
	flags, err := buildPinned(ctx, tc, e, log)
	if err != nil {
		return nil, nil, err
	}
	return append(flags.compile, "-D"+e.Floor.Define, "-I", flags.include), flags.link, nil
}

// engineFlags are what the floor of an engine is compiled and linked with, and the version of the library.
type engineFlags struct {
	compile, link []string
	version       string
	// A pinned engine's source tree, the directory of its headers there and the compiler of its library.
	src, include, compiler string
}

// buildPinned fetches e's pinned release, builds its library for tc and returns the flags that compile (besides its
// headers, in include, and the adapter's define) and link a program with it.
func buildPinned(ctx context.Context, tc Toolchain, e engines.Engine, log io.Writer) (engineFlags, error) {
	p := e.Pinned
	src, err := sourceOf(e).get(ctx, log)
	if err != nil {
		return engineFlags{}, hint.With(err, "install apt-get's Debian tools (bench-bridge fetches Debian's source package "+
			p.Package+" "+p.DebianVersion+" with them)")
	}
	lib, err := buildLibrary(ctx, tc, libSpec{title: e.Title, name: e.Name, src: src, files: p.Lib}, log)
	if err != nil {
		return engineFlags{}, err
	}
	var compile []string
	if e.Floor.VersionDefine != "" {
		compile = []string{fmt.Sprintf("-D%s=%q", e.Floor.VersionDefine, p.Version)}
	}
	return engineFlags{compile: compile, link: lib.Objects, version: p.Package + " " + p.DebianVersion,
		src: src, include: filepath.Join(src, p.Include), compiler: lib.Compiler}, nil
}

// hostFlags finds the library of e on this machine: a Node addon's headers, or a pkg-config module; an engine that
// is neither needs nothing but the adapter's define.
func hostFlags(ctx context.Context, e engines.Engine) (engineFlags, error) {
	f := e.Floor
	switch {
	case f.NodeAddon:
		out, err := exec.CommandContext(ctx, "node", "--version").Output()
		if err != nil {
			return engineFlags{}, fmt.Errorf("the %s floor runs in node: node --version: %w (bench-bridge engines says what to install)", e.Name, err)
		}
		for _, h := range e.Headers {
			if _, err := os.Stat(filepath.Join(e.IncludeDir, h)); err != nil {
				return engineFlags{}, fmt.Errorf("the %s floor: no Node headers in %s (bench-bridge engines says what to install)", e.Name, e.IncludeDir)
			}
		}
		// An addon is a shared object whose main the launcher calls: the harness's main is renamed for it.
		return engineFlags{compile: []string{"-D" + f.Define, "-Dmain=bb_harness_main", "-fPIC", "-I", e.IncludeDir},
			link: []string{"-shared"}, version: "node " + strings.TrimSpace(string(out))}, nil
	case len(e.PkgConfig) == 0:
		return engineFlags{compile: []string{"-D" + f.Define}}, nil
	}
	module := e.PkgConfig[0]
	for _, m := range e.PkgConfig {
		if exec.CommandContext(ctx, "pkg-config", "--exists", m).Run() == nil {
			module = m
			break
		}
	}
	var pc [3]string
	for i, flag := range []string{"--modversion", "--cflags", "--libs"} {
		out, err := exec.CommandContext(ctx, "pkg-config", flag, module).Output()
		if err != nil {
			return engineFlags{}, fmt.Errorf("the %s floor: pkg-config %s %s: %w (bench-bridge engines says what to install)", e.Name, flag, module, err)
		}
		pc[i] = strings.TrimSpace(string(out))
	}
	compile, version := []string{"-D" + f.Define}, module+" "+pc[0]
	if f.VersionDefine != "" {
		compile = append(compile, fmt.Sprintf("-D%s=%q", f.VersionDefine, pc[0]))
	}
	return engineFlags{compile: append(compile, strings.Fields(pc[1])...), link: strings.Fields(pc[2]), version: version}, nil
}
