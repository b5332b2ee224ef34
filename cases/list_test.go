package cases

import (
	"strings"
	"testing"
)

// TestCatalogueIsTheCaseList checks the catalogue the Go side read from cases.def: the reference first, names
// unique (ParseList refuses twins), every case's op said.
func TestCatalogueIsTheCaseList(t *testing.T) {
	if len(Catalogue) < 2 || Catalogue[0].Name != RefCase || Catalogue[0].Crossing {
		t.Fatalf("catalogue starts with %+v, want %s crossing nothing", Catalogue[0], RefCase)
	}
	for _, c := range Catalogue {
		if c.Op == "" || c.UnitOps < 1 {
			t.Errorf("%s: op %q, unit ops %d", c.Name, c.Op, c.UnitOps)
		}
	}
	if c, ok := Lookup("ui_ops_calls"); !ok || c.UnitOps != 16 || c.Bytes != 0 {
		t.Errorf("ui_ops_calls: %+v, want 16 ops per unit", c)
	}
	if c, ok := Lookup("script_to_host_string_1k"); !ok || c.Bytes != 1024 {
		t.Errorf("script_to_host_string_1k: %+v, want 1024 bytes", c)
	}
	if c, ok := Lookup("bytes_64k"); !ok || !c.TypedArrays {
		t.Errorf("bytes_64k: %+v, want a case of typed arrays", c)
	}
}

func TestParseListRefusesWhatCDoesNotMean(t *testing.T) {
	const ref = "BB_CASE(ref_js_loop, 0, 1, 0, setup_js_loop, run_js_loop, js_ref, \"the loop\")\n"
	for _, tc := range []struct{ name, src, want string }{
		{"missing field", ref + "BB_CASE(a, 1, 1, setup, run, js, \"op\")\n", "x.def:2: BB_CASE has 7 fields, want 8"},
		{"twice", ref + "/* a\ncomment */\n" + ref, "x.def:4: case ref_js_loop listed twice"},
		{"crossing", ref + "BB_CASE(a, yes, 1, 0, setup, run, js, \"op\")", "x.def:2: a: crossing is \"yes\", want 0 or 1"},
		{"unit ops", ref + "BB_CASE(a, 1, 0, 0, setup, run, js, \"op\")", "unit_ops at least 1"},
		{"escape", ref + "BB_CASE(a, 1, 1, 0, setup, run, js, \"a \\\"b\\\"\")", "x.def:2: the op string may not hold escapes"},
		{"two literals", ref + "BB_CASE(a, 1, 1, 0, setup, run, js, \"a\" \"b\")", "want one string literal"},
		{"unclosed", ref + "BB_CASE(a, 1, 1, 0, setup, run, js, \"op\"\n", "x.def:2: BB_CASE( without its closing parenthesis"},
		{"stray text", ref + "#define X 1\n", "x.def:2: want BB_CASE(...) or BB_CASE_TYPED_ARRAYS(...), found \"#define X 1\""},
		{"no why", ref + "BB_CASE_TYPED_ARRAYS(a, 1, 1, 0, setup, run, js, \"op\")", "x.def:2: BB_CASE_TYPED_ARRAYS has 8 fields, want 9"},
		{"why not said", ref + "BB_CASE_TYPED_ARRAYS(a, 1, 1, 0, setup, run, js, \"op\", why)", "x.def:2: a: why is why, want one string literal"},
		{"comment", ref + "/* never closed", "x.def:2: unterminated comment"},
		{"no reference", "BB_CASE(a, 1, 1, 0, setup, run, js, \"op\")", "the first case must be ref_js_loop"},
	} {
		_, err := ParseList("x.def", tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	got, err := ParseList("x.def", ref+"BB_CASE(s, 1, 1, 65536, setup, run, JS(16), \"f (a, b) -> c\")\n"+
		"BB_CASE_TYPED_ARRAYS(t, 1, 1, 0, setup, run, js_t,\n\t\"op\",\n\t\"no Uint8Array\")")
	if err != nil || len(got) != 3 || got[1] != (Case{Name: "s", Op: "f (a, b) -> c", Crossing: true, UnitOps: 1, Bytes: 65536}) ||
		got[2] != (Case{Name: "t", Op: "op", Crossing: true, UnitOps: 1, TypedArrays: true}) {
		t.Fatalf("got %+v, %v", got, err)
	}
}
