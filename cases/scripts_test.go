package cases

import (
	"regexp"
	"strings"
	"testing"
)

// A harness_scripts.c in miniature: arrays, an object-like and a function-like macro (with #stringification), a table.
const miniHarness = `
static const char js_prelude[] = "function expect() {}\n";
#define JS_HEAD                          \
	"var S = mkstr(N);\n" /* a comment */ \
	"expect(S);\n"
#define JS_LOOP(start, body) "function bench(n) {\n" start "  " body "\n}\n"
#define JS_STR(N) "var S = mkstr(" #N ");\n"
static const char js_a[] = JS_HEAD JS_LOOP("  let s = 0;\n", "s += host_upper(S).length;");
static const char js_b[] = "host_register(function (x) { return \"x\\\\\" + x; });\n";
static const struct { const char *name; const char *src; } scripts[] = {
	{"a", js_a},
	{"b", js_b},
	{"c", JS_STR(1024)},
};
`

func TestParseScriptsExpandsTheCSource(t *testing.T) {
	s, err := parseScripts(miniHarness, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": "var S = mkstr(N);\nexpect(S);\nfunction bench(n) {\n  let s = 0;\n  s += host_upper(S).length;\n}\n",
		"b": "host_register(function (x) { return \"x\\\\\" + x; });\n",
		"c": "var S = mkstr(1024);\n",
	}
	for name, js := range want {
		if s.ByCase[name] != js {
			t.Errorf("script %s = %q, want %q", name, s.ByCase[name], js)
		}
	}
	if s.Prelude != "function expect() {}\n" || len(s.ByCase) != 3 {
		t.Errorf("prelude %q, %d scripts", s.Prelude, len(s.ByCase))
	}
	if got := HostFunctions(s.ByCase["a"]); strings.Join(got, ",") != "host_upper" {
		t.Errorf("host functions of a: %v", got)
	}
	if got := DefinedFunctions(s.ByCase["a"]); strings.Join(got, ",") != "bench(n)" {
		t.Errorf("functions a defines: %v", got)
	}
}

// TestParseScriptsFromACaseList: with an X-macro case list, the list names each case's script and its bytes (N).
func TestParseScriptsFromACaseList(t *testing.T) {
	list := "BB_CASE(a, 1, 1, 64, setup_js_loop, run_js_loop, js_a,\n\t\"op\")\nBB_CASE(b, 1, 1, 0, setup_callback, run_call_add, js_b,\n\t\"op\")\n"
	s, err := parseScripts(miniHarness, list)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ByCase) != 2 || s.Bytes["a"] != 64 || s.Bytes["b"] != 0 || !strings.HasPrefix(s.ByCase["b"], "host_register(") {
		t.Fatalf("scripts %v, bytes %v", s.ByCase, s.Bytes)
	}
}

func TestParseScriptsRefusesWhatItCannotRead(t *testing.T) {
	_, err := parseScripts(miniHarness+"\nstatic const char js_x[] = some_function();\n", "BB_CASE(x, 1, 1, 0, s, r, js_x,\n")
	if err == nil || !strings.Contains(err.Error(), "the script of x") {
		t.Fatalf("err = %v, want the case it could not read", err)
	}
}

// TestEveryCaseHasItsScript: the embedded harness_scripts.c gives every catalogue case a script.
func TestEveryCaseHasItsScript(t *testing.T) {
	s, err := LoadScripts()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Catalogue {
		if s.ByCase[c.Name] == "" {
			t.Errorf("case %s: no script", c.Name)
		}
	}
}

// es2015 finds what ES5 engines (Duktape 2.7, MuJS 1.3) cannot parse or do not have, as the scripts would write it.
var es2015 = regexp.MustCompile("\\b(let|const|class)\\s|=>|`|\\.repeat\\(|\\.\\.\\.[A-Za-z_\\[]|for\\s*\\([\\w\\s]+\\sof\\s")

// TestScriptsAreES5: every case's script and the prelude are ES5, their timed loops too (var, not let), so that one
// text per case runs in every engine and each engine's ×ref is over the same loop.
func TestScriptsAreES5(t *testing.T) {
	s, err := LoadScripts()
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"the prelude": s.Prelude}
	for name, js := range s.ByCase {
		texts[name] = js
	}
	for name, js := range texts {
		for i, line := range strings.Split(js, "\n") {
			if m := es2015.FindString(line); m != "" {
				t.Errorf("%s, line %d: %q is not ES5: %s", name, i+1, m, line)
			}
		}
	}
}
