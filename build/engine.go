package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/hint"
)

// engineFloor is how the floor of an engine other than QuickJS is built: its C or C++ file, the define that picks
// the harness's adapter for it (BB_ENGINE_NONE: the floor is its own), and the engine it is built with: a release
// pinned as Debian's source package (pinned), built from the files lib of its tree for every toolchain and linked
// statically like QuickJS, with its headers in include; or this machine's library, a pkg-config module (the first
// of several that this machine has); or, for a Node addon (V8), Node's headers, the program then being node running
// the addon (addonLauncher). versionDefine names the define that gives the program the engine's version (none: the
// program reads it from the engine's header).
type engineFloor struct {
	source, define, versionDefine string
	pinned                        *debianSource
	lib                           []string
	include                       string
	pkgConfig                     []string
	addon                         bool
}

// nodeHeaders is where Node's headers are: a Node of the machine's own, or Debian's libnode-dev.
const nodeHeaders = "/usr/include/node"

// The pinned Duktape and MuJS releases: Debian's source packages, whose upstream tarballs must have these sha256.
const (
	DuktapeVersion       = "2.7.0"
	DuktapeDebianVersion = "2.7.0-2"
	MuJSVersion          = "1.3.6"
	MuJSDebianVersion    = "1.3.6-1"
)

var (
	// duktapeSource is Duktape's distributable: src/ holds the one-file build (duktape.c, duktape.h, duk_config.h).
	duktapeSource = debianSource{title: "Duktape", version: DuktapeVersion, pkg: "duktape", debVer: DuktapeDebianVersion, suite: "trixie",
		tarball: "duktape_2.7.0.orig.tar.xz", top: "duktape-2.7.0",
		sha256: "90f8d2fa8b5567c6899830ddef2c03f3c27960b11aca222fa17aa7ac613c2890",
		files:  []string{"src/duktape.c", "src/duktape.h", "src/duk_config.h"}}
	// mujsSource is MuJS's tree: one.c includes every file of the library.
	mujsSource = debianSource{title: "MuJS", version: MuJSVersion, pkg: "mujs", debVer: MuJSDebianVersion, suite: "trixie",
		tarball: "mujs_1.3.6.orig.tar.xz", top: "mujs-1.3.6",
		sha256: "d52501cd9539e37ef95e8494323da25c7d10d3738cd95757cf71d248447dafa9",
		files:  []string{"one.c", "mujs.h", "jsi.h"}}
)

// engineFloors are the floors of the engines besides QuickJS (engines.All names every engine).
var engineFloors = map[string]engineFloor{
	"jsc": {source: benchbridge.FloorJSC, define: "BB_ENGINE_JSC", versionDefine: "BB_JSC_VERSION",
		pkgConfig: []string{"javascriptcoregtk-4.1"}},
	"spidermonkey": {source: benchbridge.FloorSpiderMonkey, define: "BB_ENGINE_NONE", versionDefine: "BB_MOZJS_VERSION",
		pkgConfig: []string{"mozjs-102", "mozjs-128"}},
	"v8": {source: benchbridge.FloorV8, define: "BB_ENGINE_NONE", addon: true},
	// Duktape's floor prints DUK_VERSION, which is right; MuJS 1.3.6's mujs.h still says 1.3.5, so its floor prints
	// the release it was built from.
	"duktape": {source: benchbridge.FloorDuktape, define: "BB_ENGINE_NONE", pinned: &duktapeSource,
		lib: []string{"src/duktape.c"}, include: "src"},
	"mujs": {source: benchbridge.FloorMuJS, define: "BB_ENGINE_NONE", versionDefine: "BB_MUJS_VERSION", pinned: &mujsSource,
		lib: []string{"one.c"}, include: "."},
}

// addonLauncher is the program of an addon's floor: node loading the addon beside it and calling its main with the
// command line (the harness's main, renamed; floor/floor_v8.cc).
const addonLauncher = `#!/bin/sh
exec node -e 'process.exitCode = require(process.argv[1]).main(process.argv.slice(2))' "$0.node" "$0" "$@"
`

// EngineFloors are the engines besides QuickJS that bench-bridge has a floor for, sorted.
func EngineFloors() []string {
	var names []string
	for name := range engineFloors {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// BuildEngineFloor builds the floor of engine (one of EngineFloors) for tc, or returns the cached one built from the
// same sources, library and flags. An engine built from its pinned source builds for every toolchain; one that is
// this machine's library only with the host's.
func BuildEngineFloor(ctx context.Context, tc Toolchain, engine string, log io.Writer) (*Program, error) {
	ef, ok := engineFloors[engine]
	if !ok {
		return nil, fmt.Errorf("no floor for engine %q (have quickjs, %s)", engine, strings.Join(EngineFloors(), ", "))
	}
	if ef.pinned == nil && tc.Name != Host().Name {
		// A board of this machine's architecture (an ssh board's x86_64 toolchain on an x86_64 machine) runs the
		// program this machine builds against its own library, linked dynamically: the runner checks that the board
		// has the library (runner's checkLibraries). Another architecture would need the library built for it.
		if ef.addon {
			return nil, fmt.Errorf("the %s floor is an addon of this machine's node (two files, and node's own ABI), so it runs on this machine only, not with the %s toolchain", engine, tc.Name)
		}
		if tc.NativeOn != runtime.GOARCH {
			return nil, fmt.Errorf("the %s floor links this machine's library, so it runs on this machine and on boards of its architecture (%s) that have the library, not with the %s toolchain",
				engine, runtime.GOARCH, tc.Name)
		}
		tc = Host()
	}
	compiler, err := tc.check(ctx)
	if err != nil {
		return nil, err
	}
	var flags engineFlags
	if ef.pinned != nil {
		flags, err = ef.build(ctx, tc, engine, log)
	} else {
		flags, err = ef.flags(ctx, engine)
	}
	if err != nil {
		return nil, err
	}
	if ef.pinned != nil {
		flags.compile = append([]string{"-D" + ef.define}, flags.compile...)
	}
	name := artifact.ProgramFloor + "-" + engine
	// The flags recorded are those that change the program; the pinned engine's headers are in the cache.
	prog := &Program{Kind: artifact.ProgramFloor, Compiler: compiler, CFlags: strings.Join(slices.Concat(tc.CFlags, flags.compile), " ")}
	compile := flags.compile
	if flags.include != "" {
		compile = append(slices.Clone(compile), "-I", flags.include)
	}
	in := linkInputs{name: name, sources: []string{benchbridge.EngineCases, ef.source}, compile: compile, link: flags.link,
		key: []string{compiler, strings.Join(tc.CFlags, " "), strings.Join(tc.LDFlags, " "), flags.version}}
	if !ef.addon {
		prog.Path, err = linkCached(ctx, tc, in, log)
		return prog, err
	}
	in.name += ".node"
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

// EngineCompileFlags gives what compiles and links a program against engine (one of EngineFloors but an addon's)
// for tc, as its floor is built: a pinned engine's library built (or found in the cache) from its release, with its
// headers and the define of its version where its header lacks it; or this machine's library, through pkg-config,
// with the define of the harness's adapter for it (-DBB_ENGINE_JSC, -DBB_ENGINE_NONE).
func EngineCompileFlags(ctx context.Context, tc Toolchain, engine string, log io.Writer) (compile, link []string, err error) {
	ef, ok := engineFloors[engine]
	switch {
	case !ok:
		return nil, nil, fmt.Errorf("no floor for engine %q (have quickjs, %s)", engine, strings.Join(EngineFloors(), ", "))
	case ef.addon:
		return nil, nil, fmt.Errorf("the %s floor is an addon of node: it runs inside node, not as a program of its own", engine)
	case ef.pinned == nil:
		flags, err := ef.flags(ctx, engine)
		return flags.compile, flags.link, err
	}
	flags, err := ef.build(ctx, tc, engine, log)
	if err != nil {
		return nil, nil, err
	}
	return append(flags.compile, "-D"+ef.define, "-I", flags.include), flags.link, nil
}

// engineFlags are what the floor of an engine is compiled and linked with, and the version of the library.
type engineFlags struct {
	compile, link []string
	version       string
	// A pinned engine's source tree, the directory of its headers there and the compiler of its library.
	src, include, compiler string
}

// build fetches ef's pinned release, builds its library for tc and returns the flags that compile (besides its
// headers, in include, and the adapter's define) and link a program with it.
func (ef engineFloor) build(ctx context.Context, tc Toolchain, engine string, log io.Writer) (engineFlags, error) {
	src, err := ef.pinned.get(ctx, log)
	if err != nil {
		return engineFlags{}, hint.With(err, "install apt-get's Debian tools (bench-bridge fetches Debian's source package "+
			ef.pinned.pkg+" "+ef.pinned.debVer+" with them)")
	}
	lib, err := buildLibrary(ctx, tc, libSpec{title: ef.pinned.title, name: engine, src: src, files: ef.lib}, log)
	if err != nil {
		return engineFlags{}, err
	}
	var compile []string
	if ef.versionDefine != "" {
		compile = []string{fmt.Sprintf("-D%s=%q", ef.versionDefine, ef.pinned.version)}
	}
	return engineFlags{compile: compile, link: lib.Objects, version: ef.pinned.pkg + " " + ef.pinned.debVer,
		src: src, include: filepath.Join(src, ef.include), compiler: lib.Compiler}, nil
}

// flags finds the library of ef on this machine.
func (ef engineFloor) flags(ctx context.Context, engine string) (engineFlags, error) {
	if ef.addon {
		out, err := exec.CommandContext(ctx, "node", "--version").Output()
		if err != nil {
			return engineFlags{}, fmt.Errorf("the %s floor runs in node: node --version: %w (bench-bridge engines says what to install)", engine, err)
		}
		if _, err := os.Stat(nodeHeaders + "/v8.h"); err != nil {
			return engineFlags{}, fmt.Errorf("the %s floor: no Node headers in %s (bench-bridge engines says what to install)", engine, nodeHeaders)
		}
		// An addon is a shared object whose main the launcher calls: the harness's main is renamed for it.
		return engineFlags{compile: []string{"-D" + ef.define, "-Dmain=bb_harness_main", "-fPIC", "-I", nodeHeaders},
			link: []string{"-shared"}, version: "node " + strings.TrimSpace(string(out))}, nil
	}
	module := ef.pkgConfig[0]
	for _, m := range ef.pkgConfig {
		if exec.CommandContext(ctx, "pkg-config", "--exists", m).Run() == nil {
			module = m
			break
		}
	}
	var pc [3]string
	for i, flag := range []string{"--modversion", "--cflags", "--libs"} {
		out, err := exec.CommandContext(ctx, "pkg-config", flag, module).Output()
		if err != nil {
			return engineFlags{}, fmt.Errorf("the %s floor: pkg-config %s %s: %w (bench-bridge engines says what to install)", engine, flag, module, err)
		}
		pc[i] = strings.TrimSpace(string(out))
	}
	compile, version := []string{"-D" + ef.define}, module+" "+pc[0]
	if ef.versionDefine != "" {
		compile = append(compile, fmt.Sprintf("-D%s=%q", ef.versionDefine, pc[0]))
	}
	return engineFlags{compile: append(compile, strings.Fields(pc[1])...), link: strings.Fields(pc[2]), version: version}, nil
}
