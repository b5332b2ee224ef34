package build

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
)

// Binary is the file a program was built into (docs/results.md#words) for a toolchain, ready to push to a target.
type Binary struct {
	Kind     string // artifact.ProgramBridge or artifact.ProgramFloor
	Codec    string // the bridge's codec; empty for the floor
	Path     string // the local binary
	Compiler string // the compiler's version line
	CFlags   string
	// User is what a user's bridge was built with (nil for the reference programs).
	User *UserBuild
	// Commit is the commit of the user's bridge's repository the program was built from (NAME@REV); empty for
	// a bridge built from its folder as it is.
	Commit string
}

// Codecs lists the reference bridge's codecs: json is the boundary report's generic path, JSON text both ways
// (docs/method.md#the-boundary-report), fast adds typed entries (falling back to binary), binary is the tagged
// buffer. -DBB_CODEC_X picks the one a bridge binary's cases use.
var Codecs = []string{"json", "fast", "binary"}

// BuildProgram links the floor or the reference bridge with lib, or returns the cached binary built from the same
// sources, library and flags. defines are extra compile-time options, NAME or NAME=VALUE (--define; the gate's A/B
// proof switches its slowdown at run time instead); they are part of the cache key and of the recorded flags.
func BuildProgram(ctx context.Context, tc Toolchain, lib *Library, kind, codec string, log io.Writer, defines ...string) (*Binary, error) {
	return BuildProgramFrom(ctx, tc, lib, nil, kind, codec, log, defines...)
}

// BuildProgramFrom is BuildProgram from the C sources in src, every one, laid out as the embedded ones
// (benchbridge.CSources): a copy of them with a change, such as a case a test adds to cases.def. A nil src is
// BuildProgram's.
func BuildProgramFrom(ctx context.Context, tc Toolchain, lib *Library, src fs.FS, kind, codec string, log io.Writer, defines ...string) (*Binary, error) {
	var sources []string
	var read func(string) ([]byte, error)
	switch kind {
	case artifact.ProgramFloor:
		sources, codec, read = []string{quickJS.Floor.File}, "", floorReader(quickJS.Floor)
	case artifact.ProgramBridge:
		if !slices.Contains(Codecs, codec) {
			return nil, fmt.Errorf("unknown codec %q (have %s)", codec, strings.Join(Codecs, ", "))
		}
		sources = benchbridge.BridgeSources
	default:
		return nil, fmt.Errorf("unknown program kind %q", kind)
	}
	if src != nil {
		read = func(name string) ([]byte, error) { return fs.ReadFile(src, name) }
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
	name := kind
	if codec != "" {
		name += "-" + codec
	}
	prog := &Binary{Kind: kind, Codec: codec, Compiler: lib.Compiler,
		CFlags: strings.Join(append(append([]string{}, tc.CFlags...), defines...), " ")}
	in := linkInputs{name: name, sources: sources, read: read, compile: slices.Concat(defines, []string{"-I", lib.Src}), link: lib.Objects,
		key: []string{kind, codec, lib.Compiler, strings.Join(lib.Objects, " "), strings.Join(tc.CFlags, " "), strings.Join(tc.LDFlags, " "), strings.Join(defines, " ")}}
	if prog.Path, err = linkCached(ctx, tc, in, log); err != nil {
		return nil, err
	}
	return prog, nil
}

// linkInputs are what one program is built from besides the harness: its own sources, compile arguments, what it
// links with, and everything else its cache key must hold.
type linkInputs struct {
	name    string
	sources []string // the program's C files and headers, by path
	// read reads a source, the harness's too; nil reads the embedded sources (an engine's floor may be elsewhere:
	// floorReader).
	read          func(name string) ([]byte, error)
	compile, link []string
	key           []string
}

// linkCached compiles harness.c and the program's C files into a binary named in.name, or returns the cached one
// built from the same sources, arguments and key.
func linkCached(ctx context.Context, tc Toolchain, in linkInputs, log io.Writer) (string, error) {
	files := map[string][]byte{}
	read := in.read
	if read == nil {
		read = benchbridge.CSources.ReadFile
	}
	sourceNames := append(slices.Clone(benchbridge.CommonSources), in.sources...)
	for _, name := range sourceNames {
		b, err := read(name)
		if err != nil {
			return "", err
		}
		files[filepath.Base(name)] = b
	}
	keyParts := slices.Concat(in.key, in.compile, in.link)
	for _, name := range slices.Sorted(maps.Keys(files)) { // in a fixed order: the same sources, the same key
		keyParts = append(keyParts, name, string(files[name]))
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "programs", tc.Name+"-"+in.name+"-"+hashOf(keyParts...))
	path := filepath.Join(dir, in.name)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	fmt.Fprintf(log, "building %s for %s\n", in.name, tc.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			return "", err
		}
	}
	// A C++ file (a floor over an engine whose API is C++) is compiled on its own, as C++17, and the program is
	// linked by the C++ compiler; the C files are compiled and linked in one step with it.
	args := append(slices.Clone(in.compile), "-I", dir)
	linkWith, asC := tc.compile, []string(nil)
	for _, name := range in.sources {
		ext := filepath.Ext(name)
		if ext != ".cpp" && ext != ".cc" {
			continue
		}
		obj := filepath.Join(dir, strings.TrimSuffix(filepath.Base(name), ext)+".o")
		cxx := append(slices.Concat([]string{"-std=c++17"}, tc.CFlags, args), "-c", filepath.Join(dir, filepath.Base(name)), "-o", obj)
		if err := runIn(ctx, dir, cxxFor(tc.CC), cxx...); err != nil {
			return "", fmt.Errorf("building %s: %w", in.name, err)
		}
		args = append(args, obj)
		asC = []string{"-x", "c"} // the C++ driver would take a .c file for C++
		linkWith = func(ctx context.Context, dir string, args ...string) error {
			return runIn(ctx, dir, cxxFor(tc.CC), slices.Concat(tc.CFlags, args)...)
		}
	}
	for _, name := range slices.Concat(benchbridge.HarnessSources, in.sources) { // harness.c (every part), then the program's
		if strings.HasSuffix(name, ".c") {
			args = append(append(args, asC...), filepath.Join(dir, filepath.Base(name)))
		}
	}
	// Link to a temporary name first: a binary at path is always a complete one.
	args = append(append(args, in.link...), tc.LDFlags...)
	args = append(args, "-o", path+".tmp")
	if err := linkWith(ctx, dir, args...); err != nil {
		return "", tc.diagnose(ctx, fmt.Errorf("building %s: %w", in.name, err))
	}
	return path, os.Rename(path+".tmp", path)
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
