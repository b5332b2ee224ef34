package cases

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// quoted finds the string literals of a C or C++ file.
var quoted = regexp.MustCompile(`"([A-Za-z0-9_]+)"`)

// TestEveryProgramHasTheHostFunctionsOfItsCases: the host functions a case's script calls are one list, read from the
// scripts (HostFunctions); every program that lists a case must register each of them by name, so that a program
// that misses one fails here and not as a set-up error on a device. The QuickJS programs (the floor, the reference
// bridge, the C++ example) list every case; the other engines' floors list engine_cases.h's, and the examples of
// other engines their own.
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
	// listed is every case of the catalogue that text names in a string literal.
	listed := func(text string) []string {
		var names []string
		for _, m := range quoted.FindAllStringSubmatch(text, -1) {
			if _, ok := Lookup(m[1]); ok && !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
		return names
	}
	table := read("floor/engine_cases.h") // BB_ENGINE_CASES, before BB_ENGINE_MISSING names the others
	engineCases := listed(table[strings.Index(table, "#define BB_ENGINE_CASES"):strings.Index(table, "#define BB_ENGINE_MISSING")])
	programs := []struct {
		file  string
		cases []string
	}{
		{"floor/floor.c", Names()},
		{"cases/c/host_fns.c", Names()},
		{"examples/cpp-quickjs/bridge.cpp", Names()},
		{"floor/floor_jsc.c", engineCases},
		{"floor/floor_spidermonkey.cpp", engineCases},
		{"floor/floor_v8.cc", engineCases},
		{"floor/floor_duktape.c", engineCases},
		{"floor/floor_mujs.c", engineCases},
		{"examples/jsc/bridge.c", listed(read("examples/jsc/bridge.c"))},
		{"examples/duktape/bench.c", listed(read("examples/duktape/bench.c"))},
	}
	for _, p := range programs {
		if len(p.cases) == 0 {
			t.Errorf("%s: lists no case of the catalogue", p.file)
			continue
		}
		src := read(p.file)
		for _, c := range p.cases {
			for _, fn := range HostFunctions(scripts.ByCase[c]) {
				if !strings.Contains(src, `"`+fn+`"`) {
					t.Errorf("%s lists %s, whose script calls %s, and registers no %q", p.file, c, fn, fn)
				}
			}
		}
	}
}
