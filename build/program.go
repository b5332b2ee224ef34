package build

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
)

// Program is a bench program built for a toolchain, ready to push to a target.
type Program struct {
	Kind     string // artifact.ProgramBridge or artifact.ProgramFloor
	Codec    string // the bridge's codec; empty for the floor
	Path     string // the local binary
	Compiler string // the compiler's version line
	CFlags   string
	// User is what a user's bridge was built with (nil for the reference programs).
	User *UserBuild
}

// Codecs lists the reference bridge's codecs: json is the boundary report's generic path, JSON text both ways
// (docs/method.md#the-boundary-report), fast adds typed entries (falling back to binary), binary is the tagged
// buffer. -DBB_CODEC_X picks the one a bridge binary's cases use.
var Codecs = []string{"json", "fast", "binary"}

// BuildProgram links the floor or the reference bridge with lib, or returns the cached binary built from the same
// sources, library and flags. defines are extra compile-time options, NAME or NAME=VALUE (--define; the gate's A/B
// proof switches its slowdown at run time instead); they are part of the cache key and of the recorded flags.
func BuildProgram(ctx context.Context, tc Toolchain, lib *Library, kind, codec string, log io.Writer, defines ...string) (*Program, error) {
	var sources []string
	switch kind {
	case artifact.ProgramFloor:
		sources, codec = []string{benchbridge.Floor}, ""
	case artifact.ProgramBridge:
		if !slices.Contains(Codecs, codec) {
			return nil, fmt.Errorf("unknown codec %q (have %s)", codec, strings.Join(Codecs, ", "))
		}
		sources = benchbridge.BridgeSources
	default:
		return nil, fmt.Errorf("unknown program kind %q", kind)
	}
	files := map[string][]byte{}
	sourceNames := append(slices.Clone(benchbridge.CommonSources), sources...)
	for _, name := range sourceNames {
		b, err := benchbridge.CSources.ReadFile(name)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(name)] = b
	}
	extra, err := defineFlags(defines)
	if err != nil {
		return nil, err
	}
	defines = []string{"-DBB_CODEC_" + strings.ToUpper(codec)}
	if codec == "" {
		defines = nil
	}
	defines = append(defines, extra...)
	keyParts := []string{kind, codec, lib.Compiler, strings.Join(lib.Objects, " "), strings.Join(tc.CFlags, " "), strings.Join(tc.LDFlags, " "), strings.Join(defines, " ")}
	for _, name := range slices.Sorted(maps.Keys(files)) { // in a fixed order: the same sources, the same key
		keyParts = append(keyParts, name, string(files[name]))
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	name := kind
	if codec != "" {
		name += "-" + codec
	}
	dir := filepath.Join(cache, "programs", tc.Name+"-"+name+"-"+hashOf(keyParts...))
	prog := &Program{Kind: kind, Codec: codec, Path: filepath.Join(dir, name), Compiler: lib.Compiler,
		CFlags: strings.Join(append(append([]string{}, tc.CFlags...), defines...), " ")}
	if _, err := os.Stat(prog.Path); err == nil {
		return prog, nil
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Stat(prog.Path); err == nil {
		return prog, nil
	}
	fmt.Fprintf(log, "building %s for %s\n", name, tc.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			return nil, err
		}
	}
	// Link to a temporary name first: a binary at prog.Path is always a complete one.
	args := append([]string{}, defines...)
	args = append(args, "-I", lib.Src, "-I", dir)
	for _, name := range slices.Concat(benchbridge.HarnessSources, sources) { // harness.c (every part), then the program's
		if strings.HasSuffix(name, ".c") {
			args = append(args, filepath.Join(dir, filepath.Base(name)))
		}
	}
	args = append(append(args, lib.Objects...), tc.LDFlags...)
	args = append(args, "-o", prog.Path+".tmp")
	if err := tc.compile(ctx, dir, args...); err != nil {
		return nil, tc.diagnose(ctx, fmt.Errorf("building %s: %w", name, err))
	}
	if err := os.Rename(prog.Path+".tmp", prog.Path); err != nil {
		return nil, err
	}
	return prog, nil
}

// defineName is what a compile-time option's name may be: a C identifier.
var defineName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// defineFlags turns NAME or NAME=VALUE options into -D flags, refusing anything that is not one.
func defineFlags(defines []string) ([]string, error) {
	var flags []string
	for _, d := range defines {
		name, value, hasValue := strings.Cut(d, "=")
		if !defineName.MatchString(name) || (hasValue && strings.ContainsAny(value, " \t\n\"'\\")) {
			return nil, fmt.Errorf("define %q: want NAME or NAME=VALUE, with NAME a C identifier and VALUE without spaces or quotes", d)
		}
		flags = append(flags, "-D"+d)
	}
	return flags, nil
}
