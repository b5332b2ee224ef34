package cases

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/engines"
)

// quoted finds the string literals of a C or C++ file.
var quoted = regexp.MustCompile(`"([A-Za-z0-9_]+)"`)

// hostListEntry is one function of host_functions.h's BB_HOST_FNS: FN or TYPED (name, arity, fast entry).
var hostListEntry = regexp.MustCompile(`(?m)^\s*(FN|TYPED)\((\w+), (\d+), (\w+)\)`)

// hostFunction is one function of the list.
type hostFunction struct {
	name, fast  string
	typedArrays bool // TYPED: its argument is a typed array
}

// hostList reads host_functions.h's list.
func hostList(t *testing.T, text string) []hostFunction {
	t.Helper()
	var list []hostFunction
	for _, m := range hostListEntry.FindAllStringSubmatch(text, -1) {
		list = append(list, hostFunction{name: m[2], fast: m[4], typedArrays: m[1] == "TYPED"})
	}
	if len(list) == 0 {
		t.Fatal("cases/c/host_functions.h: no FN(...) or TYPED(...) in BB_HOST_FNS")
	}
	return list
}

// defines says whether C or C++ source src defines name: a line at the file's top level (not indented, not a
// comment or a directive) that names it, as `static JSValue host_add(...` or JavaScriptCore's `JF_HOST_FN(host_add)`.
func defines(src, name string) bool {
	return regexp.MustCompile(`(?m)^[A-Za-z_].*\b` + regexp.QuoteMeta(name) + `\b`).MatchString(src)
}

// TestEveryProgramHasTheHostFunctionsOfItsCases: a program that lists a case registers every host function the
// case's script calls (HostFunctions), or the case fails at set-up on a device. The programs of this repository (the
// floors, the reference bridge) register host_functions.h's list, each writing the functions' bodies: so the list must
// hold every function a case's script calls; a case every engine runs (cases.def's BB_CASE) may call none of typed
// arrays, which the floor of an engine without them (MuJS) leaves out of its table, as it leaves out the cases of
// BB_CASE_TYPED_ARRAYS; and each program must expand the list and define each function it registers, the fast codec
// each typed entry the list names (a compiler that has the engine says so too; this says it where the engine is
// missing). The examples, bridges of a user's, register theirs by name: each the functions of the cases it lists.
func TestEveryProgramHasTheHostFunctionsOfItsCases(t *testing.T) {
	scripts, err := LoadScripts()
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) string {
		b, err := os.ReadFile(filepath.Join("..", path))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	list := hostList(t, read("cases/c/host_functions.h"))
	listed := map[string]hostFunction{}
	for _, f := range list {
		listed[f.name] = f
	}
	for _, c := range Catalogue {
		for _, fn := range HostFunctions(scripts.ByCase[c.Name]) {
			f, ok := listed[fn]
			switch {
			case !ok:
				t.Errorf("the script of %s calls %s, which cases/c/host_functions.h does not list", c.Name, fn)
			case f.typedArrays && !c.TypedArrays:
				t.Errorf("the script of %s calls %s, a function of typed arrays (TYPED in host_functions.h): cases.def must list it with BB_CASE_TYPED_ARRAYS",
					c.Name, fn)
			}
		}
	}

	// The programs built from the list: every floor, and the reference bridge.
	floors, err := filepath.Glob("../floor/floor*.c*")
	if err != nil || len(floors) < 2 {
		t.Fatalf("floors: %v, %v", floors, err)
	}
	// A WebAssembly host's imports are the guest's (floor/wasm/guest.wat), not the list's.
	guestHosts := map[string]bool{}
	for _, e := range engines.All {
		if e.Floor != nil && e.Floor.WasmGuest && e.Floor.File != "" {
			guestHosts[e.Floor.File] = true // its path in the module: floor/floor_wasmtime.c
		}
	}
	programs := []string{"cases/c/host_fns.c"}
	for _, f := range floors {
		if p := strings.TrimPrefix(filepath.ToSlash(f), "../"); !guestHosts[p] {
			programs = append(programs, p)
		}
	}
	for _, path := range programs {
		src := read(path)
		noTypedArrays := strings.Contains(src, "#define BB_ENGINE_NO_TYPED_ARRAYS")
		expansion := "BB_HOST_FNS(BB_HOST_ENTRY, BB_HOST_ENTRY)"
		if noTypedArrays {
			expansion = "BB_HOST_FNS(BB_HOST_ENTRY, BB_HOST_NONE)"
		}
		if !strings.Contains(src, expansion) {
			t.Errorf("%s: its table of host functions is not %s", path, expansion)
		}
		for _, f := range list {
			if !(noTypedArrays && f.typedArrays) && !defines(src, f.name) {
				t.Errorf("%s registers host_functions.h's %s and defines no %s", path, f.name, f.name)
			}
		}
	}
	fast := read("cases/c/codec_fast.c")
	if !strings.Contains(fast, "BB_HOST_FNS(FAST_ENTRY, FAST_ENTRY)") {
		t.Errorf("cases/c/codec_fast.c: its typed[] does not expand host_functions.h's list")
	}
	for _, f := range list {
		if f.fast != "bin_entry" && !defines(fast, f.fast) {
			t.Errorf("host_functions.h gives %s the fast codec's entry %s, which cases/c/codec_fast.c does not define", f.name, f.fast)
		}
	}

	// The examples: every case of the catalogue that their text names in a string literal.
	for _, path := range []string{"examples/cpp-quickjs/bridge.cpp", "examples/jsc/bridge.c", "examples/duktape/bench.c"} {
		src := read(path)
		var cases []string
		for _, m := range quoted.FindAllStringSubmatch(src, -1) {
			if _, ok := Lookup(m[1]); ok && !slices.Contains(cases, m[1]) {
				cases = append(cases, m[1])
			}
		}
		if path == "examples/cpp-quickjs/bridge.cpp" {
			cases = Names() // it includes case_table.h: every case
		}
		if len(cases) == 0 {
			t.Errorf("%s: lists no case of the catalogue", path)
		}
		for _, c := range cases {
			for _, fn := range HostFunctions(scripts.ByCase[c]) {
				if !strings.Contains(src, `"`+fn+`"`) {
					t.Errorf("%s lists %s, whose script calls %s, and has no %q", path, c, fn, fn)
				}
			}
		}
	}
}
