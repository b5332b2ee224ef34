// Package engines lists the JavaScript engines bench-bridge knows: what each is, where its source or library comes
// from, where it can run, whether bench-bridge has a floor for it, and whether this machine has what it needs (with
// the Debian package that fixes it). It only looks: it builds and runs nothing.
package engines

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bench-bridge/bench-bridge/build"
)

// The engines' names, as `--engine` and an artifact's `meta engine` line spell them.
const (
	QuickJS      = "quickjs"
	Duktape      = "duktape"
	MuJS         = "mujs"
	JSC          = "jsc"
	V8           = "v8"
	SpiderMonkey = "spidermonkey"
)

// Default is the engine of the floor and the reference bridge when none is named.
const Default = QuickJS

// How an engine runs JavaScript: an interpreter, or with a JIT compiler (whose loops of pure JavaScript run many
// times faster, so that its ×ref is of another kind than an interpreter's).
const (
	Interpreter = "interpreter"
	JIT         = "JIT"
)

// Engine is one engine bench-bridge knows.
type Engine struct {
	Name  string // QuickJS, Duktape, ...: the constants above
	Title string // how people write it: "JavaScriptCore"
	Kind  string // Interpreter or JIT
	// Source says where its source or library comes from.
	Source string
	// Targets says where it can run.
	Targets string
	// Floor says whether bench-bridge has a floor for it: `bench-bridge floor TARGET --engine NAME` (QuickJS's is
	// floor/floor.c, the others' build.EngineFloors).
	Floor bool
	// need is what this machine must have for a program over it to build here.
	need need
}

// need is what an engine's programs need on this machine: header files (one of each group), or a pkg-config module
// (the first of several that is there), and the Debian package per suite that brings them.
type need struct {
	fromSource bool              // built from its pinned source: nothing to install but a compiler
	headers    []string          // absolute paths, every one needed
	pkgConfig  []string          // modules, any one will do
	commands   []string          // commands on PATH, every one needed
	debian     map[string]string // suite codename -> package(s); "" for any suite
	version    func(s System, found string) string
}

// All are the engines, in the order they are listed: QuickJS first (the default), then the interpreters, then the
// JIT engines.
var All = []Engine{
	{Name: QuickJS, Title: "QuickJS", Kind: Interpreter, Floor: true,
		Source:  pinned("quickjs", build.QuickJSDebianVersion),
		Targets: everyTarget,
		need:    need{fromSource: true, version: func(System, string) string { return build.QuickJSVersion }}},
	{Name: Duktape, Title: "Duktape", Kind: Interpreter, Floor: true,
		Source:  pinned("duktape", build.DuktapeDebianVersion),
		Targets: everyTarget,
		need:    need{fromSource: true, version: func(System, string) string { return build.DuktapeVersion }}},
	{Name: MuJS, Title: "MuJS", Kind: Interpreter, Floor: true,
		Source:  pinned("mujs", build.MuJSDebianVersion),
		Targets: everyTarget,
		need:    need{fromSource: true, version: func(System, string) string { return build.MuJSVersion }}},
	{Name: JSC, Title: "JavaScriptCore", Kind: JIT, Floor: true,
		Source:  "Debian's libjavascriptcoregtk-4.1-dev (WebKitGTK's JavaScriptCore, its C API; pkg-config javascriptcoregtk-4.1)",
		Targets: onBoards,
		need: need{pkgConfig: []string{"javascriptcoregtk-4.1"}, debian: map[string]string{"": "libjavascriptcoregtk-4.1-dev"},
			version: pkgConfigVersion}},
	{Name: V8, Title: "V8", Kind: JIT, Floor: true,
		Source:  "Node's headers (/usr/include/node: a Node of the machine's own, else Debian's libnode-dev); the program is node, an addon and a script",
		Targets: "this machine (its floor is an addon of this machine's node)",
		need: need{headers: []string{"/usr/include/node/v8.h", "/usr/include/node/node.h"}, commands: []string{"node"},
			debian: map[string]string{"": "nodejs libnode-dev"}, version: v8Version}},
	{Name: SpiderMonkey, Title: "SpiderMonkey", Kind: JIT, Floor: true,
		Source:  "Debian's libmozjs-102-dev (Debian 12) or libmozjs-128-dev (Debian 13); C++17",
		Targets: onBoards,
		need: need{pkgConfig: []string{"mozjs-102", "mozjs-128"}, debian: map[string]string{"bookworm": "libmozjs-102-dev",
			"trixie": "libmozjs-128-dev", "": "libmozjs-128-dev"}, version: pkgConfigVersion}},
}

// onBoards is where an engine whose floor links this machine's library runs: the program is built here, dynamically,
// so a board of another architecture would need the library built for it.
const onBoards = "this machine, and ssh boards of its architecture that have the library (doctor ssh HOST names the package)"

// everyTarget is where an engine built from its pinned source runs.
const everyTarget = "every target: this machine, Android over adb, ssh boards, webos (static on devices)"

// pinned says where an engine built from Debian's source package comes from.
func pinned(pkg, version string) string {
	return "Debian's source package " + pkg + " " + version + ", sha256-pinned, built per toolchain"
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
	for _, h := range e.need.headers {
		if _, err := os.Stat(filepath.Join(s.Root, h)); err != nil {
			missing = append(missing, h)
		} else {
			found = append(found, h)
		}
	}
	module := ""
	if len(e.need.pkgConfig) > 0 {
		for _, m := range e.need.pkgConfig {
			if _, ok := s.PkgConfig(m); ok {
				module = m
				break
			}
		}
		if module == "" {
			missing = append(missing, "pkg-config "+strings.Join(e.need.pkgConfig, " or "))
		} else {
			found = append(found, "pkg-config "+module)
		}
	}
	for _, c := range e.need.commands {
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
	if e.need.version != nil {
		st.Version = e.need.version(s, module)
	}
	st.Detail = strings.Join(found, ", ")
	if e.need.fromSource {
		st.Detail = "built from source on first use (needs a C compiler; doctor checks it)"
	}
	return st
}

// fix is the command that installs e's parts on a Debian of that suite.
func (e Engine) fix(suite string) string {
	pkg, ok := e.need.debian[suite]
	if !ok {
		pkg = e.need.debian[""]
	}
	if pkg == "" {
		return ""
	}
	fix := "apt-get install " + pkg
	if e.Name == V8 {
		fix += " (or a Node of your own whose headers are in /usr/include/node)"
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
		n, ok := defineNumber(s, "/usr/include/node/v8-version.h", name)
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
