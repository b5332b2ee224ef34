package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
)

// engineFloor is how the floor of an engine other than QuickJS is built: its C or C++ file, the define that picks
// the harness's adapter for it (BB_ENGINE_NONE: the floor is its own), and the library it links: a pkg-config module
// (the first of several that this machine has), whose version the program reports through versionDefine (none: the
// program reads it from header, whose bytes then key the cache), or, for a Node addon (V8), Node's headers; the
// program is then node running the addon (addonLauncher).
type engineFloor struct {
	source, define, versionDefine string
	pkgConfig                     []string
	header                        string
	addon                         bool
}

// nodeHeaders is where Node's headers are: a Node of the machine's own, or Debian's libnode-dev.
const nodeHeaders = "/usr/include/node"

// engineFloors are the floors of the engines besides QuickJS (engines.All names every engine).
var engineFloors = map[string]engineFloor{
	"jsc": {source: benchbridge.FloorJSC, define: "BB_ENGINE_JSC", versionDefine: "BB_JSC_VERSION",
		pkgConfig: []string{"javascriptcoregtk-4.1"}},
	"spidermonkey": {source: benchbridge.FloorSpiderMonkey, define: "BB_ENGINE_NONE", versionDefine: "BB_MOZJS_VERSION",
		pkgConfig: []string{"mozjs-102", "mozjs-128"}},
	"v8": {source: benchbridge.FloorV8, define: "BB_ENGINE_NONE", addon: true},
	// Both floors print the version of the header they were compiled against (DUK_VERSION, JS_VERSION_*): Debian's
	// duktape.pc says 2.2.0 for Duktape 2.7.0.
	"duktape": {source: benchbridge.FloorDuktape, define: "BB_ENGINE_NONE", pkgConfig: []string{"duktape"}, header: "/usr/include/duktape.h"},
	"mujs":    {source: benchbridge.FloorMuJS, define: "BB_ENGINE_NONE", pkgConfig: []string{"mujs"}},
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
// same sources, library and flags. The engine is this machine's library, so only the host's toolchain builds it.
func BuildEngineFloor(ctx context.Context, tc Toolchain, engine string, log io.Writer) (*Program, error) {
	ef, ok := engineFloors[engine]
	if !ok {
		return nil, fmt.Errorf("no floor for engine %q (have quickjs, %s)", engine, strings.Join(EngineFloors(), ", "))
	}
	if tc.Name != Host().Name {
		return nil, fmt.Errorf("the %s floor links this machine's library, so it runs on this machine only, not with the %s toolchain", engine, tc.Name)
	}
	compiler, err := tc.check(ctx)
	if err != nil {
		return nil, err
	}
	flags, err := ef.flags(ctx, engine)
	if err != nil {
		return nil, err
	}
	name := artifact.ProgramFloor + "-" + engine
	prog := &Program{Kind: artifact.ProgramFloor, Compiler: compiler, CFlags: strings.Join(slices.Concat(tc.CFlags, flags.compile), " ")}
	in := linkInputs{name: name, sources: []string{benchbridge.EngineCases, ef.source}, compile: flags.compile, link: flags.link,
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

// engineFlags are what the floor of an engine is compiled and linked with, and the version of the library.
type engineFlags struct {
	compile, link []string
	version       string
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
	if ef.header != "" {
		b, err := os.ReadFile(ef.header)
		if err != nil {
			return engineFlags{}, fmt.Errorf("the %s floor: %w (bench-bridge engines says what to install)", engine, err)
		}
		sum := sha256.Sum256(b)
		version += " " + filepath.Base(ef.header) + " " + hex.EncodeToString(sum[:8])
	}
	return engineFlags{compile: append(compile, strings.Fields(pc[1])...), link: strings.Fields(pc[2]), version: version}, nil
}
