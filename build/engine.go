package build

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
)

// engineFloor is how the floor of an engine other than QuickJS is built: its C or C++ file, the define that picks
// the harness's adapter for it (BB_ENGINE_NONE: the floor is its own), and the pkg-config module of the library it
// links (the first of several that this machine has), whose version the program reports through versionDefine.
type engineFloor struct {
	source, define, versionDefine string
	pkgConfig                     []string
}

// engineFloors are the floors of the engines besides QuickJS (engines.All names every engine).
var engineFloors = map[string]engineFloor{
	"jsc": {source: benchbridge.FloorJSC, define: "BB_ENGINE_JSC", versionDefine: "BB_JSC_VERSION",
		pkgConfig: []string{"javascriptcoregtk-4.1"}},
	"spidermonkey": {source: benchbridge.FloorSpiderMonkey, define: "BB_ENGINE_NONE", versionDefine: "BB_MOZJS_VERSION",
		pkgConfig: []string{"mozjs-102", "mozjs-128"}},
}

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
			return nil, fmt.Errorf("the %s floor: pkg-config %s %s: %w (bench-bridge engines says what to install)", engine, flag, module, err)
		}
		pc[i] = strings.TrimSpace(string(out))
	}
	version := pc[0]
	defines := []string{"-D" + ef.define, fmt.Sprintf("-D%s=%q", ef.versionDefine, version)}
	name := artifact.ProgramFloor + "-" + engine
	prog := &Program{Kind: artifact.ProgramFloor, Compiler: compiler,
		CFlags: strings.Join(slices.Concat(tc.CFlags, defines, strings.Fields(pc[1])), " ")}
	in := linkInputs{name: name, sources: []string{benchbridge.EngineCases, ef.source}, compile: slices.Concat(defines, strings.Fields(pc[1])),
		link: strings.Fields(pc[2]), key: []string{compiler, strings.Join(tc.CFlags, " "), strings.Join(tc.LDFlags, " ")}}
	if prog.Path, err = linkCached(ctx, tc, in, log); err != nil {
		return nil, err
	}
	return prog, nil
}
