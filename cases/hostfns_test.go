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
// bridge, the C++ example) and the other engines' floors list every case (MuJS's all but those of typed arrays), and
// the examples of other engines their own. The fast codec's typed table (codec_fast.c's typed[]) must name each one
// too, with its typed entry or with bin_entry: a function missing there would be measured through the binary fallback
// without a word.
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
	// within is the part of path from the first from up to the first to after it.
	within := func(path, from, to string) string {
		text := read(path)
		i := strings.Index(text, from)
		if i < 0 {
			t.Fatalf("%s: no %q", path, from)
		}
		j := strings.Index(text[i:], to)
		if j < 0 {
			t.Fatalf("%s: no %q after %q", path, to, from)
		}
		return text[i : i+j]
	}
	// Every engine's floor has the whole catalogue (floor/engine_cases.h), MuJS's less the cases of a typed array's
	// memory (ES5 has none).
	engineCases := Names()
	es5Cases := slices.DeleteFunc(Names(), func(c string) bool { return c == "ui_ops_buffer" || c == "bytes_64k" })
	programs := []struct {
		name  string
		src   string
		cases []string
	}{
		{"floor/floor.c", read("floor/floor.c"), Names()},
		{"cases/c/host_fns.c", read("cases/c/host_fns.c"), Names()},
		{"cases/c/codec_fast.c's typed[]", within("cases/c/codec_fast.c", "} typed[] = {", "};"), Names()},
		{"examples/cpp-quickjs/bridge.cpp", read("examples/cpp-quickjs/bridge.cpp"), Names()},
		{"floor/floor_jsc.c", read("floor/floor_jsc.c"), engineCases},
		{"floor/floor_spidermonkey.cpp", read("floor/floor_spidermonkey.cpp"), engineCases},
		{"floor/floor_v8.cc", read("floor/floor_v8.cc"), engineCases},
		{"floor/floor_duktape.c", read("floor/floor_duktape.c"), engineCases},
		{"floor/floor_mujs.c", read("floor/floor_mujs.c"), es5Cases},
		{"examples/jsc/bridge.c", read("examples/jsc/bridge.c"), listed(read("examples/jsc/bridge.c"))},
		{"examples/duktape/bench.c", read("examples/duktape/bench.c"), listed(read("examples/duktape/bench.c"))},
	}
	for _, p := range programs {
		if len(p.cases) == 0 {
			t.Errorf("%s: lists no case of the catalogue", p.name)
			continue
		}
		for _, c := range p.cases {
			for _, fn := range HostFunctions(scripts.ByCase[c]) {
				if !strings.Contains(p.src, `"`+fn+`"`) {
					t.Errorf("%s lists %s, whose script calls %s, and has no %q", p.name, c, fn, fn)
				}
			}
		}
	}
}
