package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/cases"
)

var update = flag.Bool("update", false, "rewrite docs/bridge.md's generated section")

const (
	bridgeDoc      = "../../docs/bridge.md"
	generatedStart = "<!-- The cases below are generated from cases/c/harness_scripts.c by TestBridgeDocCases: go test ./cmd/bench-bridge -run TestBridgeDocCases -update -->\n"
	generatedEnd   = "<!-- end of the generated cases -->\n"
)

// hostFunctions says what each host function a case script calls must do, in the terms of the harness's helpers.
// TestBridgeDocCases fails when a script calls one that is not here, or one here is called by none.
var hostFunctions = map[string]string{
	"host_add":      "`host_add(a, b)`: two numbers; returns `(a + b) % 1000003` as a number (harness: `bb_add`).",
	"host_upper":    "`host_upper(s)`: a string; returns it with its ASCII letters upper-cased and every other UTF-8 byte unchanged, so the same length (harness: `bb_upper_ascii` on the UTF-8 bytes).",
	"host_obj":      "`host_obj(o)`: an object `{id, name, x, y, tags: [three strings], pos: {a, b}}`; returns `{id: id + 1, ok: true, x: x + y}` (harness: read it into a `bb_obj_in`, call `bb_obj_host`, return the `bb_obj_out`).",
	"host_sum":      "`host_sum(a)`: an array of 64 numbers; returns their sum (harness: `bb_sum`); anything but 64 numbers throws.",
	"host_register": "`host_register(f)`: a function; the host keeps it (a handle) and later calls it as the case's op.",
	"host_fail":     "`host_fail(i)`: a number; throws an `Error` whose message is `host_fail: refused i` (harness: `bb_fail_message`).",
	"set_prop":      "`set_prop(id, key, value)`: sets property `key` (one of `x y w h color text opacity visible`) of node `id` (0 to 63) to the number `value` in a host-side table (harness: `bb_ui_key`, `bb_ui_set` on a `bb_ui`); a bad node or key throws.",
	"apply_ops":     "`apply_ops(buf)`: a `Float64Array` of `(node, key index, value)` triples; applies each as `set_prop` does (harness: `bb_ui_apply`).",
	"host_bytes":    "`host_bytes(b)`: a `Uint8Array` of 65536 bytes; returns the sum of its bytes (harness: `bb_bytes_sum`).",
	"host_record":   "`host_record(r)`: an object `{id, text}`; returns `{id: id + 1, text}` with the same text (harness: `bb_record_host`).",
	"set_node":      "`set_node({id, key, value})`: one UI mutation as a small object; applies it as `set_prop(id, key, value)` does (harness: `bb_ui_set_named`).",
	"apply_batch":   "`apply_batch(list)`: an array of `{id, key, value}` objects; applies each as `set_node` does.",
}

// hostCalls says how the host drives a script by the function the script defines.
var hostCalls = map[string]string{
	"bench(n)":  "The host calls `bench(n)` once per timed run, for `n` loop units: the loop runs in JavaScript.",
	"add(a, b)": "The host calls `add(s, i)` once per op, for `i` from 0, with `s` the previous result (harness: `bb_check_add` checks 100 calls at set-up); `add` computes what `bb_add` does.",
	"obj(o)":    "The host calls `obj(o)` once per op with the object `bb_obj_sample(i)` (the same shape as `host_obj`'s argument) and reads `{id, ok, x}` back (harness: `bb_check_obj` checks one call at set-up).",
	"text(s)":   "The host calls `text(s)` once per op with its text of `N` bytes (harness: `bb_text_new`) and reads the string back (harness: `bb_check_text` checks one call at set-up).",
	"record(r)": "The host calls `record(r)` once per op with `{id, text}`, the text its `N` bytes, and reads `{id, text}` back (harness: `bb_check_record`).",
	"fail(i)":   "The host calls `fail(i)` once per op; it throws, and the host takes the error's message and stack (harness: `bb_js_error_text`; `bb_check_script_error` checks one call at set-up).",
}

const callbackCall = "The script hands a function to `host_register` once, at set-up; the host then calls it as `f(s, i)` once per op, as `host_to_script_scalar` calls `add`."

// casesSection is the generated part of docs/bridge.md: each case's host functions, how the host drives it and its
// script, from the sources the programs are built from.
func casesSection(t *testing.T) string {
	s, err := cases.LoadScripts()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(generatedStart)
	fmt.Fprintf(&b, "\nEvery case's script is evaluated after this prelude (`bench-bridge cases --script prelude`):\n\n```js\n%s```\n", s.Prelude)
	for _, c := range cases.Catalogue {
		js := s.ByCase[c.Name]
		fmt.Fprintf(&b, "\n### `%s`\n\nOne op: %s.", c.Name, c.Op)
		if !c.Crossing {
			b.WriteString(" It does not cross: it is the reference every ratio is taken against.")
		}
		b.WriteString("\n\n")
		if n := s.Bytes[c.Name]; n > 0 {
			fmt.Fprintf(&b, "Before the script, the host sets the global `N` to %d: the length of its string in UTF-8 bytes.\n", n)
		}
		for _, def := range cases.DefinedFunctions(js) {
			b.WriteString(hostCalls[def] + "\n")
		}
		fns := cases.HostFunctions(js)
		if slices.Contains(fns, "host_register") {
			b.WriteString(callbackCall + "\n")
		}
		if len(fns) > 0 {
			b.WriteString("\nHost functions it calls:\n\n")
			for _, fn := range fns {
				b.WriteString("- " + hostFunctions[fn] + "\n")
			}
		}
		fmt.Fprintf(&b, "\n```js\n%s```\n", js)
	}
	b.WriteString("\n" + generatedEnd)
	return b.String()
}

// TestBridgeDocCases keeps docs/bridge.md's list of cases, scripts and host functions what the programs run.
func TestBridgeDocCases(t *testing.T) {
	s, err := cases.LoadScripts()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, c := range cases.Catalogue {
		js, ok := s.ByCase[c.Name]
		if !ok {
			t.Fatalf("case %s has no script in harness_scripts.c", c.Name)
		}
		for _, fn := range cases.HostFunctions(js) {
			used[fn] = true
			if hostFunctions[fn] == "" {
				t.Errorf("case %s calls %s, which hostFunctions does not describe", c.Name, fn)
			}
		}
		defs := cases.DefinedFunctions(js)
		for _, d := range defs {
			if hostCalls[d] == "" {
				t.Errorf("case %s defines %s, which hostCalls does not describe", c.Name, d)
			}
		}
		if len(defs) == 0 && !used["host_register"] {
			t.Errorf("case %s neither defines a function nor registers one: how does the host drive it?", c.Name)
		}
	}
	for fn := range hostFunctions {
		if !used[fn] {
			t.Errorf("hostFunctions describes %s, which no case calls", fn)
		}
	}
	want := casesSection(t)
	doc, err := os.ReadFile(bridgeDoc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start, end := strings.Index(text, generatedStart), strings.Index(text, generatedEnd)
	if start < 0 || end < start {
		t.Fatalf("%s has no generated section (%q ... %q)", bridgeDoc, generatedStart, generatedEnd)
	}
	got := text[start : end+len(generatedEnd)]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(bridgeDoc, []byte(text[:start]+want+text[end+len(generatedEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's cases are stale: go test ./cmd/bench-bridge -run TestBridgeDocCases -update", bridgeDoc)
}

// TestCasesScript prints one case's script, the same text docs/bridge.md shows.
func TestCasesScript(t *testing.T) {
	stdout, stderr, code := run(t, "cases", "--script", "script_to_host_scalar")
	if code != 0 || !strings.Contains(stdout, "s = host_add(s, i)") || !strings.HasPrefix(stdout, "function bench(n)") {
		t.Fatalf("exit %d, %q %s", code, stdout, stderr)
	}
	if stdout, _, code := run(t, "cases", "--script", "prelude"); code != 0 || !strings.HasPrefix(stdout, "function expect(") {
		t.Fatalf("prelude: exit %d, %q", code, stdout)
	}
	if _, stderr, code := run(t, "cases", "--script", "nope"); code != 1 || !strings.Contains(stderr, `unknown case "nope"`) {
		t.Fatalf("unknown case: exit %d, %s", code, stderr)
	}
}

// checkedBlock returns the code block that follows `<!-- checked: NAME -->` in doc.
func checkedBlock(t *testing.T, doc, name string) string {
	t.Helper()
	marker := "<!-- checked: " + name + " -->\n"
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("%s has no %q", bridgeDoc, marker)
	}
	rest := doc[i+len(marker):]
	start := strings.Index(rest, "\n") + 1 // after the ```lang line
	end := strings.Index(rest[start:], "```")
	if !strings.HasPrefix(rest, "```") || end < 0 {
		t.Fatalf("%s: no code block after %q", bridgeDoc, marker)
	}
	return rest[start : start+end]
}

// TestBridgeDocExampleBuildsAndRuns builds the C bridge docs/bridge.md shows, from the text of the page, and measures
// it: the two cases it implements, the others not implemented.
func TestBridgeDocExampleBuildsAndRuns(t *testing.T) {
	requireCC(t)
	doc, err := os.ReadFile(bridgeDoc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"mine.c", "bench-bridge.toml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(checkedBlock(t, string(doc), name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "mine.json")
	stdout, stderr, code := run(t, localName(), "--config", filepath.Join(dir, "bench-bridge.toml"), "--bridge", "mine", "--runs", "1", "--samples", "3", "--min-time", "2ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	a := readArtifact(t, out)
	if !a.Complete || len(a.Cases) != 2 || a.Case("script_to_host_scalar") == nil || len(a.NotImplemented) != len(cases.Catalogue)-2 {
		t.Fatalf("artifact: complete %v, %d cases, not implemented %v, failures %+v", a.Complete, len(a.Cases), a.NotImplemented, a.Failures)
	}
}
