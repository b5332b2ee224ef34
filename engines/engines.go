// Package engines lists the JavaScript engines bench-bridge knows, the one list of them: what each is, where its
// source or library comes from, where it can run, how its floor is built (build reads it), and whether this machine
// has what it needs (with the Debian package that fixes it). It only looks: it builds and runs nothing.
package engines

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
)

// The engines' names, as `--engine` and an artifact's `meta engine` line spell them.
const (
	QuickJS      = "quickjs"
	Duktape      = "duktape"
	MuJS         = "mujs"
	JSC          = "jsc"
	V8           = "v8"
	SpiderMonkey = "spidermonkey"
	Goja         = "goja"
	QuickJSGo    = "quickjs-go"
	Wazero       = "wazero"
	WazeroInterp = "wazero-interp"
	Wasmtime     = "wasmtime"
	V8Wasm       = "v8-wasm"
)

// Default is the engine of the floor and the reference bridge when none is named.
const Default = QuickJS

// How an engine runs JavaScript: an interpreter, or with a JIT compiler (whose loops of pure JavaScript run many
// times faster, so that its ×ref is of another kind than an interpreter's).
const (
	Interpreter = "interpreter"
	JIT         = "JIT"
)

// How a WebAssembly engine runs its guest (the catalogue in WebAssembly, not JavaScript): compiled to machine code
// when it is loaded, or interpreted.
const (
	WasmCompiler    = "WebAssembly, compiler"
	WasmInterpreter = "WebAssembly, interpreter"
)

// The releases bench-bridge builds from their pinned source.
const (
	QuickJSVersion = "2025-04-26"
	DuktapeVersion = "2.7.0"
	MuJSVersion    = "1.3.6"
)

// The Go modules of the engines embedded in Go, at the versions bench-bridge's go.mod pins (a test holds the two to
// each other).
var (
	GojaModule      = GoModule{Path: "github.com/dop251/goja", Version: "v0.0.0-20260311135729-065cd970411c"}
	QuickJSGoModule = GoModule{Path: "modernc.org/quickjs", Version: "v0.27.0"}
	WazeroModule    = GoModule{Path: "github.com/tetratelabs/wazero", Version: "v1.12.0"}
)

// WasmtimeModule is the Go module that carries Wasmtime's C API library and headers (wasmtime-go), pinned in go.mod
// and go.sum (wasmtime_pin.go imports it, so that go mod tidy keeps it) but compiled into nothing.
var WasmtimeModule = GoModule{Path: "github.com/bytecodealliance/wasmtime-go/v37", Version: "v37.0.0"}

// Engine is one engine bench-bridge knows. What a program over it is built with (Pinned, or PkgConfig, or Headers
// and Commands) is what build builds with and what Check looks for on this machine.
type Engine struct {
	Name  string // QuickJS, Duktape, ...: the constants above
	Title string // how people write it: "JavaScriptCore"
	Kind  string // Interpreter or JIT
	// Source says where its source or library comes from.
	Source string
	// Targets says where it can run.
	Targets string
	// Floor is how its floor is built, `bench-bridge floor TARGET --engine NAME`; nil when bench-bridge has none
	// for it yet.
	Floor *Floor
	// Pinned is the release it is built from, per toolchain and linked statically; nil for an engine that is this
	// machine's library.
	Pinned *Pinned
	// PkgConfig are the modules of this machine's library, any one will do (the first that is there).
	PkgConfig []string
	// IncludeDir is where its headers are on this machine when no pkg-config module says it (Node's); Headers are
	// the ones of them a program needs, every one.
	IncludeDir string
	Headers    []string
	// Commands are the commands on PATH its programs need, every one.
	Commands []string
	// Debian is the Debian package(s) per suite codename that bring what this machine lacks; "" for any suite.
	Debian map[string]string
	// Install is what brings what this machine lacks where no Debian package does (Go itself: Debian's is too old).
	Install string
	// GoModule is the Go module of an engine embedded in Go, pinned in bench-bridge's go.mod and fetched by the go
	// command on first use; nil for the others.
	GoModule *GoModule
	// Library is a prebuilt static library that a Go module carries (Wasmtime's), which the floor links; nil for the
	// others.
	Library *ModuleLibrary
	// version reads the version this machine has, given the pkg-config module found ("" for none).
	version func(s System, module string) string
}

// Floor is how an engine's floor is built: its file, compiled with the harness and floor/engine_cases.h (the case
// table the floors besides QuickJS's share), against the engine's Pinned release or this machine's library.
type Floor struct {
	// File is the floor's source: C, or C++ (.cpp, .cc: compiled as C++17, the program linked by the C++ compiler).
	File string
	// Files is where File is read; nil for bench-bridge's embedded sources (benchbridge.CSources).
	Files fs.FS
	// Define picks the harness's adapter for the engine: BB_ENGINE_JSC, or BB_ENGINE_NONE for a floor that defines
	// engine.h's hooks itself ("" for QuickJS's, the harness's default).
	Define string
	// VersionDefine names the define that gives the program the engine's version (the pinned release, or
	// pkg-config's); "" when the program reads it from the engine's header.
	VersionDefine string
	// NodeAddon makes the floor an addon of this machine's node (V8): node, loading it, is the program.
	NodeAddon bool
	// WasmGuest makes the floor a host of the WebAssembly guest catalogue (floor/wasm/guest.wat, compiled by
	// build.WasmGuest), which the program holds as the byte array of floor/wasm_guest.h (a floor in C), or embeds as
	// floor/wasm/guest.wasm, which build writes into the sources before go build (a Go floor: package floor/wasm).
	WasmGuest bool
	// GoPackage is the floor's Go package in bench-bridge's module ("floor/goja"), for an engine embedded in Go: a
	// program on the Go harness (package harness), built with go build for the target's GOOS, GOARCH and GOARM
	// without cgo, so that it runs on every target with no C toolchain. "" for a floor in C or C++.
	GoPackage string
	// GoTags are the build tags of its go build: one package makes two floors (wazero's compiler and interpreter).
	GoTags string
}

// ModuleLibrary is an engine's prebuilt static library carried by a Go module: pinned in bench-bridge's go.mod and
// go.sum, fetched once per machine into Go's module cache by the go command, which checks it against go.sum, and
// linked statically into the floor, for the targets the module has a library for.
type ModuleLibrary struct {
	Module GoModule
	// Libs are the library's path in the module per Go target ("linux/amd64") of a floor's toolchain; a target not
	// listed is refused, with Why.
	Libs map[string]string
	// Include is the folder of its headers in the module.
	Include string
	// Link are the system libraries its static link needs besides the toolchain's.
	Link []string
	// Why says what the library is built for, where a floor is refused: no library for a target, or a C library
	// it cannot link with.
	Why string
}

// GoModule is a Go module at a version.
type GoModule struct {
	Path, Version string
}

// pseudoVersion is a Go pseudo-version's timestamp: a module without releases (goja) is pinned at a commit.
var pseudoVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+-(?:0\.)?(\d{4})(\d{2})(\d{2})\d{6}-[0-9a-f]{12}$`)

// Short is the module's version as bench-bridge engines shows it: the release without its v, or, for a commit's
// pseudo-version, the commit's date (2026-03-11), as QuickJS names its releases.
func (m GoModule) Short() string {
	if d := pseudoVersion.FindStringSubmatch(m.Version); d != nil {
		return d[1] + "-" + d[2] + "-" + d[3]
	}
	return strings.TrimPrefix(m.Version, "v")
}

// Pinned is an engine's release pinned as Debian's source package: apt-get fetches it with a private sources list,
// the upstream (orig) tarball must have the sha256 written here, and it is unpacked once into the cache.
type Pinned struct {
	Version       string // the upstream release, as the engine names it
	Package       string // the source package
	DebianVersion string // its Debian version
	Suite         string // the Debian suite that has that version
	Tarball       string // the orig tarball's file name
	SHA256        string
	Top           string   // the tarball's top directory
	Files         []string // what an unpacked tree must have, relative to it
	Lib           []string // the files of the tree that make the engine's library
	Include       string   // the directory of its headers in the tree
}

var (
	// quickJSRelease is QuickJS's: its library is what the floor and the reference bridge link.
	quickJSRelease = &Pinned{Version: QuickJSVersion, Package: "quickjs", DebianVersion: "2025.04.26-1", Suite: "trixie",
		Tarball: "quickjs_2025.04.26.orig.tar.xz", Top: "quickjs-2025.04.26",
		SHA256: "ec81da5b3249ed648dbc7df4a1654988910e66a118d9b71cb63534216efcfbbe",
		Files:  append([]string{"quickjs.h", "VERSION"}, quickJSLib...), Lib: quickJSLib, Include: "."}
	// quickJSLib are the files that make QuickJS's library (qjs.c and qjsc.c are programs, not library).
	quickJSLib = []string{"quickjs.c", "dtoa.c", "libregexp.c", "libunicode.c", "cutils.c", "quickjs-libc.c"}
	// duktapeRelease is Duktape's distributable: src/ holds the one-file build (duktape.c, duktape.h, duk_config.h).
	duktapeRelease = &Pinned{Version: DuktapeVersion, Package: "duktape", DebianVersion: "2.7.0-2", Suite: "trixie",
		Tarball: "duktape_2.7.0.orig.tar.xz", Top: "duktape-2.7.0",
		SHA256: "90f8d2fa8b5567c6899830ddef2c03f3c27960b11aca222fa17aa7ac613c2890",
		Files:  []string{"src/duktape.c", "src/duktape.h", "src/duk_config.h"}, Lib: []string{"src/duktape.c"}, Include: "src"}
	// mujsRelease is MuJS's tree: one.c includes every file of the library.
	mujsRelease = &Pinned{Version: MuJSVersion, Package: "mujs", DebianVersion: "1.3.6-1", Suite: "trixie",
		Tarball: "mujs_1.3.6.orig.tar.xz", Top: "mujs-1.3.6",
		SHA256: "d52501cd9539e37ef95e8494323da25c7d10d3738cd95757cf71d248447dafa9",
		Files:  []string{"one.c", "mujs.h", "jsi.h"}, Lib: []string{"one.c"}, Include: "."}
)

// nodeHeaders is where Node's headers are: a Node of the machine's own, or Debian's libnode-dev.
const nodeHeaders = "/usr/include/node"

// All are the engines, in the order they are listed: QuickJS first (the default), then the interpreters, then the
// JIT engines, then the engines embedded in Go. It is the one list of them: build builds each floor from its entry,
// and `bench-bridge engines` prints it.
var All = []Engine{
	{Name: QuickJS, Title: "QuickJS", Kind: Interpreter,
		Source: pinned(quickJSRelease), Targets: everyTarget, Pinned: quickJSRelease,
		// QuickJS's floor is the reference floor: floor.c over the library the reference bridge links too.
		Floor: &Floor{File: benchbridge.Floor}},
	{Name: Duktape, Title: "Duktape", Kind: Interpreter,
		Source: pinned(duktapeRelease), Targets: everyTarget, Pinned: duktapeRelease,
		// Duktape's floor prints DUK_VERSION, which is right.
		Floor: &Floor{File: benchbridge.FloorDuktape, Define: "BB_ENGINE_NONE"}},
	{Name: MuJS, Title: "MuJS", Kind: Interpreter,
		Source: pinned(mujsRelease), Targets: everyTarget, Pinned: mujsRelease,
		// MuJS 1.3.6's mujs.h still says 1.3.5, so its floor prints the release it was built from.
		Floor: &Floor{File: benchbridge.FloorMuJS, Define: "BB_ENGINE_NONE", VersionDefine: "BB_MUJS_VERSION"}},
	{Name: JSC, Title: "JavaScriptCore", Kind: JIT,
		Source:    "Debian's libjavascriptcoregtk-4.1-dev (WebKitGTK's JavaScriptCore, its C API; pkg-config javascriptcoregtk-4.1)",
		Targets:   onBoards,
		PkgConfig: []string{"javascriptcoregtk-4.1"}, Debian: map[string]string{"": "libjavascriptcoregtk-4.1-dev"},
		version: pkgConfigVersion,
		Floor:   &Floor{File: benchbridge.FloorJSC, Define: "BB_ENGINE_JSC", VersionDefine: "BB_JSC_VERSION"}},
	{Name: V8, Title: "V8", Kind: JIT,
		Source:     "Node's headers (/usr/include/node: a Node of the machine's own, else Debian's libnode-dev); the program is node, an addon and a script",
		Targets:    "this machine (its floor is an addon of this machine's node)",
		IncludeDir: nodeHeaders, Headers: []string{"v8.h", "node.h"}, Commands: []string{"node"},
		Debian:  map[string]string{"": "nodejs libnode-dev"},
		version: v8Version,
		Floor:   &Floor{File: benchbridge.FloorV8, Define: "BB_ENGINE_NONE", NodeAddon: true}},
	{Name: SpiderMonkey, Title: "SpiderMonkey", Kind: JIT,
		Source:    "Debian's libmozjs-102-dev (Debian 12) or libmozjs-128-dev (Debian 13); C++17",
		Targets:   onBoards,
		PkgConfig: []string{"mozjs-102", "mozjs-128"},
		Debian:    map[string]string{"bookworm": "libmozjs-102-dev", "trixie": "libmozjs-128-dev", "": "libmozjs-128-dev"},
		version:   pkgConfigVersion,
		Floor:     &Floor{File: benchbridge.FloorSpiderMonkey, Define: "BB_ENGINE_NONE", VersionDefine: "BB_MOZJS_VERSION"}},
	// The engines embedded in Go: pure Go, built by go build for every target, needing nothing but Go.
	{Name: Goja, Title: "goja", Kind: Interpreter,
		Source:  goModule(GojaModule, "JavaScript in Go; no releases: pinned at a commit, shown by its date"),
		Targets: everyGoTarget, GoModule: &GojaModule,
		Commands: []string{"go"}, Install: installGo,
		Floor: &Floor{GoPackage: "floor/goja"}},
	{Name: QuickJSGo, Title: "QuickJS in Go", Kind: Interpreter,
		Source:  goModule(QuickJSGoModule, "QuickJS translated to Go"),
		Targets: everyGoTarget, GoModule: &QuickJSGoModule,
		Commands: []string{"go"}, Install: installGo,
		Floor: &Floor{GoPackage: "floor/quickjs-go"}},
	// wazero: WebAssembly in pure Go, hosting the guest catalogue (floor/wasm/guest.wat), one Go package for two floors.
	{Name: Wazero, Title: "wazero", Kind: WasmCompiler,
		Source:   wazeroSource,
		Targets:  everyGoTarget + "; wazero's compiler on arm64 and amd64, its interpreter elsewhere (32-bit ARM, x86), as the artifact's meta wazero_engine says",
		GoModule: &WazeroModule,
		Commands: []string{"go", "wat2wasm"}, Install: installGoWabt,
		Floor: &Floor{GoPackage: "floor/wazero", WasmGuest: true}},
	{Name: WazeroInterp, Title: "wazero, its interpreter", Kind: WasmInterpreter,
		Source:  wazeroSource,
		Targets: everyGoTarget, GoModule: &WazeroModule,
		Commands: []string{"go", "wat2wasm"}, Install: installGoWabt,
		Floor: &Floor{GoPackage: "floor/wazero", WasmGuest: true, GoTags: "bb_wazero_interp"}},
	// The WebAssembly hosts: their floors run the guest catalogue (floor/wasm), not JavaScript.
	{Name: Wasmtime, Title: "Wasmtime", Kind: WasmCompiler,
		Source: "the C API library (libwasmtime.a, Cranelift) and headers that the Go module " + WasmtimeModule.Path + " " +
			WasmtimeModule.Version + " carries, pinned in bench-bridge's go.mod and go.sum, fetched once per machine by the go command",
		Targets: "this machine, Android (arm64-v8a, x86_64) and ssh boards where the module has a library: Linux x86_64 " +
			"and aarch64, glibc, linked statically; refused on 32-bit ARM, x86 and with the NDK",
		Library: &ModuleLibrary{Module: WasmtimeModule,
			Libs:    map[string]string{"linux/amd64": "build/linux-x86_64/libwasmtime.a", "linux/arm64": "build/linux-aarch64/libwasmtime.a"},
			Include: "build/include", Link: []string{"-lpthread", "-ldl", "-lm"},
			Why: "the module carries libwasmtime.a for Linux x86_64 and aarch64 only, built against glibc"},
		Commands: []string{"go", "wat2wasm"}, Install: installGoWabt,
		Floor: &Floor{File: benchbridge.FloorWasmtime, Define: "BB_ENGINE_NONE", WasmGuest: true}},
	// V8's WebAssembly, hosted by JavaScript in this machine's node: the program is node and an addon, as V8's.
	{Name: V8Wasm, Title: "V8's WebAssembly (in node, hosted by JavaScript)", Kind: WasmCompiler,
		Source:     "node's V8 (Node's headers in /usr/include/node, as V8's floor); the guest is compiled with wat2wasm (Debian's wabt)",
		Targets:    "this machine (its floor is an addon of this machine's node)",
		IncludeDir: nodeHeaders, Headers: []string{"v8.h", "node.h"}, Commands: []string{"node", "wat2wasm"},
		Debian:  map[string]string{"": "nodejs libnode-dev wabt"},
		version: v8Version,
		Floor:   &Floor{File: benchbridge.FloorV8Wasm, Define: "BB_ENGINE_NONE", NodeAddon: true, WasmGuest: true}},
}

// everyGoTarget is where an engine embedded in Go runs.
const everyGoTarget = "every target: this machine, Android over adb, ssh boards, webos (one static Go program per GOOS and GOARCH, no C toolchain)"

// installGo is what installs Go, which an engine embedded in Go needs and nothing more.
const installGo = "install Go 1.26 or later from https://go.dev/dl/ (Debian's golang is too old)"

// wazeroSource says where wazero and its floors' guest come from.
var wazeroSource = "the Go module " + WazeroModule.Path + " " + WazeroModule.Version + " (WebAssembly in pure Go, no cgo), " +
	"pinned in bench-bridge's go.mod, fetched by the go command; the guest catalogue (floor/wasm/guest.wat) is compiled " +
	"with wat2wasm (Debian's wabt)"

// installGoWabt is what installs what a Go floor over the WebAssembly guest needs: Go, and wat2wasm for the guest.
const installGoWabt = installGo + ", and apt-get install wabt (wat2wasm; scripts/setup does it)"

// goModule says where an engine embedded in Go comes from, and what it is.
func goModule(m GoModule, what string) string {
	return "the Go module " + m.Path + " " + m.Version + " (" + what + "), pinned in bench-bridge's go.mod, fetched by " +
		"the go command; pure Go (no cgo): needs nothing but Go"
}

// onBoards is where an engine whose floor links this machine's library runs: the program is built here, dynamically,
// so a board of another architecture would need the library built for it.
const onBoards = "this machine, and ssh boards of its architecture that have the library (doctor ssh HOST names the package)"

// everyTarget is where an engine built from its pinned source runs.
const everyTarget = "every target: this machine, Android over adb, ssh boards, webos (static on devices)"

// pinned says where an engine built from Debian's source package comes from.
func pinned(p *Pinned) string {
	return "Debian's source package " + p.Package + " " + p.DebianVersion + ", sha256-pinned, built per toolchain"
}

// Names are the engines' names, in All's order.
func Names() []string {
	names := make([]string, len(All))
	for i, e := range All {
		names[i] = e.Name
	}
	return names
}

// Lookup returns the engine of that name, or an error that lists the names.
func Lookup(name string) (Engine, error) {
	for _, e := range All {
		if e.Name == name {
			return e, nil
		}
	}
	return Engine{}, fmt.Errorf("unknown engine %q (have %s)", name, strings.Join(Names(), ", "))
}

// System is where an engine's parts are looked for: a root for files (/ on this machine) and pkg-config.
type System struct {
	Root string
	// PkgConfig returns a module's version and whether it is there.
	PkgConfig func(module string) (string, bool)
	// LookPath finds a command.
	LookPath func(command string) (string, error)
	// Suite is the Debian suite's codename (bookworm, trixie), "" when not Debian.
	Suite string
}

// Local is this machine.
func Local() System {
	return System{Root: "/", PkgConfig: pkgConfig, LookPath: exec.LookPath, Suite: debianSuite("/")}
}

// Status is what this machine has of an engine.
type Status struct {
	Have    bool
	Version string // what this machine has, else what the engine's row expects
	Detail  string // what was found, or what is missing
	Fix     string // the command that installs what is missing; "" when nothing is
}

// Check says whether s has what e's programs need.
func (e Engine) Check(s System) Status {
	var missing, found []string
	for _, h := range e.Headers {
		h = filepath.Join(e.IncludeDir, h)
		if _, err := os.Stat(filepath.Join(s.Root, h)); err != nil {
			missing = append(missing, h)
		} else {
			found = append(found, h)
		}
	}
	module := ""
	if len(e.PkgConfig) > 0 {
		for _, m := range e.PkgConfig {
			if _, ok := s.PkgConfig(m); ok {
				module = m
				break
			}
		}
		if module == "" {
			missing = append(missing, "pkg-config "+strings.Join(e.PkgConfig, " or "))
		} else {
			found = append(found, "pkg-config "+module)
		}
	}
	for _, c := range e.Commands {
		if p, err := s.LookPath(c); err != nil {
			missing = append(missing, c)
		} else {
			found = append(found, p)
		}
	}
	st := Status{Have: len(missing) == 0}
	if !st.Have {
		st.Detail = "missing " + strings.Join(missing, ", ")
		st.Fix = e.fix(s.Suite)
		return st
	}
	st.Detail = strings.Join(found, ", ")
	switch {
	case e.Pinned != nil: // built from its pinned source: nothing to install but a compiler
		st.Version = e.Pinned.Version
		st.Detail = "built from source on first use (needs a C compiler; doctor checks it)"
	case e.Library != nil: // a module's library: go fetches it, the toolchain links it
		st.Version = e.Library.Module.Short()
		st.Detail = "with " + st.Detail + ": go fetches the module " + e.Library.Module.Path + " into its module cache on first use (once per machine), and the floor links its library statically"
	case e.GoModule != nil: // built with go: nothing to install but Go
		st.Version = e.GoModule.Short()
		st.Detail = "built with " + st.Detail + " on first use, for each target's GOOS and GOARCH without cgo"
	case e.version != nil:
		st.Version = e.version(s, module)
	}
	return st
}

// fix is the command that installs e's parts on a Debian of that suite.
func (e Engine) fix(suite string) string {
	if e.Install != "" {
		return e.Install
	}
	pkg, ok := e.Debian[suite]
	if !ok {
		pkg = e.Debian[""]
	}
	if pkg == "" {
		return ""
	}
	fix := "apt-get install " + pkg
	if e.IncludeDir == nodeHeaders {
		fix += " (or a Node of your own whose headers are in " + nodeHeaders + ")"
	}
	return fix + " (scripts/setup does it)"
}

// pkgConfig asks pkg-config for a module's version.
func pkgConfig(module string) (string, bool) {
	out, err := exec.Command("pkg-config", "--modversion", module).Output()
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(out)), true
}

func pkgConfigVersion(s System, module string) string {
	v, _ := s.PkgConfig(module)
	return v
}

// defineNumber reads `#define NAME NUMBER` (an L suffix allowed) from a header under s's root.
func defineNumber(s System, header, name string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(s.Root, header))
	if err != nil {
		return 0, false
	}
	m := regexp.MustCompile(`(?m)^#define\s+` + name + `\s+(\d+)L?\b`).FindSubmatch(b)
	if m == nil {
		return 0, false
	}
	var n int
	fmt.Sscan(string(m[1]), &n)
	return n, true
}

// v8Version reads V8's version from Node's v8-version.h.
func v8Version(s System, _ string) string {
	var parts []string
	for _, name := range []string{"V8_MAJOR_VERSION", "V8_MINOR_VERSION", "V8_BUILD_NUMBER"} {
		n, ok := defineNumber(s, nodeHeaders+"/v8-version.h", name)
		if !ok {
			return ""
		}
		parts = append(parts, fmt.Sprint(n))
	}
	return strings.Join(parts, ".")
}

// debianSuite reads the suite's codename from os-release under root, "" when it is not there.
func debianSuite(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "etc", "os-release"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VERSION_CODENAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}
