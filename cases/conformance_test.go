package cases_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/conformance/*.txt from this run")

// sanitize are the flags of the conformance build: memory errors, leaks and undefined behaviour stop the program.
var sanitize = []string{"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"}

// buildConformance links c/conformance.c with the reference bridge, its codecs and the harness (whose main is
// renamed away) against the cached QuickJS library, which keeps its assertions (no -DNDEBUG).
func buildConformance(t *testing.T) string {
	t.Helper()
	testenv.Require(t, "gcc", "apt-get install gcc (scripts/setup does it)")
	ctx := context.Background()
	src, err := build.QuickJSSource(ctx, "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tc := build.Host()
	tc.CC = "gcc" // the sanitizers' flags and runtimes are gcc's
	lib, err := build.BuildQuickJS(ctx, tc, src, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	flags := append([]string{"-O1", "-g", "-fwrapv", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-I", src, "-I", "c"}, sanitize...)
	gcc := func(args ...string) {
		t.Helper()
		out, err := exec.Command("gcc", append(append([]string{}, flags...), args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	prog := filepath.Join(dir, "conformance")
	args := []string{"c/conformance.c"}
	for _, f := range benchbridge.HarnessSources {
		obj := filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".c")+".o")
		gcc("-Dmain=bb_protocol_main", "-c", filepath.Join("..", f), "-o", obj)
		args = append(args, obj)
	}
	for _, f := range benchbridge.BridgeSources {
		if strings.HasSuffix(f, ".c") {
			args = append(args, filepath.Join("..", f))
		}
	}
	args = append(append(args, lib.Objects...), "-lm", "-lpthread", "-ldl", "-o", prog)
	gcc(args...)
	return prog
}

// runConformance runs the program and returns its stdout, stderr and exit status.
func runConformance(t *testing.T, prog, arg string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(prog, arg)
	cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1", "UBSAN_OPTIONS=print_stacktrace=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// TestCodecConformance round-trips the corpus through every codec under the sanitizers and compares with the frozen
// outputs: json loses what JSON cannot carry, and says so; fast and binary give what the floor's conversion gives.
func TestCodecConformance(t *testing.T) {
	prog := buildConformance(t)
	// The leak check the suite relies on must be armed: holding one object past the context's end must die in
	// QuickJS's teardown assertion.
	if stdout, stderr, code := runConformance(t, prog, "leak-check"); code == 0 || !strings.Contains(stderr, "gc_obj_list") {
		t.Fatalf("leak-check: exit %d, stdout %q, stderr %q; want QuickJS's gc_obj_list assertion", code, stdout, stderr)
	}
	outputs := map[string]string{}
	for _, codec := range []string{"floor", "json", "fast", "binary"} {
		stdout, stderr, code := runConformance(t, prog, codec)
		if code != 0 || stderr != "" {
			t.Fatalf("conformance %s: exit %d (a sanitizer report or QuickJS's leak assertion?)\nstderr:\n%s", codec, code, stderr)
		}
		outputs[codec] = stdout
		golden := filepath.Join("testdata", "conformance", codec+".txt")
		if *update {
			if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test ./cases -run Conformance -update writes it)", err)
		}
		if stdout != string(want) {
			os.WriteFile(golden+".got", []byte(stdout), 0o644)
			t.Errorf("conformance %s differs from %s; this run's output is in %s.got", codec, golden, golden)
		}
	}
	for _, codec := range []string{"fast", "binary"} {
		for _, line := range strings.Split(outputs[codec], "\n") {
			if strings.Contains(line, "[floor:") {
				t.Errorf("%s loses what the floor keeps: %s", codec, line)
			}
		}
	}
	// json's losses are by design, and the output must show them.
	for _, want := range []string{
		"s2h2s nan: null   [floor: NaN]",
		"s2h2s neg_zero: 0   [floor: -0]",
		"s2h2s arr_undefined: [null, null, 1]   [floor: [undefined, null, 1]]",
	} {
		if !strings.Contains(outputs["json"], want+"\n") {
			t.Errorf("json output lacks %q", want)
		}
	}
}

// TestEngineFloorConformance runs the numbers and strings of the corpus through each other engine's floor, by its own
// conversions (floor/engine_conformance.c, under the sanitizers; the engines themselves, pinned releases or this
// machine's libraries, are not instrumented), and compares with the frozen outputs. Every number must cross unchanged
// both ways; what an engine does to a text is frozen, so that a change shows: Duktape sees four UTF-8 bytes of a
// character outside the BMP as one code unit, not a surrogate pair (MuJS 1.3.6 sees the pair; 1.3.2, Debian 12's,
// saw one unit), MuJS cuts a host's text at a NUL, and JavaScriptCore's and SpiderMonkey's floors make their strings
// from NUL-terminated UTF-8. V8's floor is an addon that runs inside node, whose main is node's: it is not a program this test can link,
// and TestEngineFloors is what checks its conversions (each case's set-up compares what comes back).
func TestEngineFloorConformance(t *testing.T) {
	testenv.Require(t, "gcc", "apt-get install gcc (scripts/setup does it)")
	// An adapter of the harness that loads a case's script (JavaScriptCore's engine_jsc.c: bb_jsc_load) is compiled
	// on its own, without harness.c's renaming of bb_case_script, so that it reaches the corpus's pseudo-case.
	adapters := map[string]string{"jsc": "c/engine_jsc.c"}
	for _, engine := range build.EngineFloors() {
		if engine == "v8" {
			continue
		}
		t.Run(engine, func(t *testing.T) {
			engineFlags, link, err := build.EngineCompileFlags(context.Background(), build.Host(), engine, io.Discard)
			if err != nil {
				testenv.Missing(t, err.Error())
			}
			floor := "floor_" + engine + ".c"
			compiler, lang := "gcc", []string{}
			if engine == "spidermonkey" {
				floor, compiler, lang = "floor_spidermonkey.cpp", "g++", []string{"-x", "c++", "-std=c++17"}
			}
			testenv.Require(t, compiler, "apt-get install g++ (scripts/setup does it)")
			dir := t.TempDir()
			common := append([]string{"-O1", "-g", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-I", "c", "-I", "../floor"}, sanitize...)
			cc := func(compiler string, args ...string) {
				t.Helper()
				out, err := exec.Command(compiler, append(slices.Clone(common), args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, out)
				}
			}
			objects := []string{filepath.Join(dir, "harness.o")}
			cc("gcc", "-DBB_ENGINE_NONE", "-Dmain=bb_protocol_main", "-Dbb_case_script=bb_catalogue_script", "-c", "c/harness.c", "-o", objects[0])
			if src := adapters[engine]; src != "" {
				objects = append(objects, filepath.Join(dir, "adapter.o"))
				cc("gcc", slices.Concat(engineFlags, []string{"-DBB_HARNESS_UNITY", "-c", src, "-o", objects[1]})...)
			}
			prog := filepath.Join(dir, "conformance")
			cc(compiler, slices.Concat(engineFlags, lang, []string{`-DBB_FLOOR="` + floor + `"`, "../floor/engine_conformance.c", "-x", "none"},
				objects, []string{"-o", prog}, link, []string{"-lm"})...)
			stdout, stderr, code := runConformance(t, prog, "")
			if code != 0 || stderr != "" {
				t.Fatalf("%s: exit %d (a sanitizer report?)\nstdout:\n%s\nstderr:\n%s", prog, code, stdout, stderr)
			}
			for _, line := range strings.Split(stdout, "\n") {
				if strings.Contains(line, " number ") && !strings.HasSuffix(line, ": same") {
					t.Errorf("the %s floor changes a number: %s", engine, line)
				}
			}
			golden := filepath.Join("testdata", "conformance", "floor-"+engine+".txt")
			if *update {
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cases -run Conformance -update writes it)", err)
			}
			if stdout != string(want) {
				os.WriteFile(golden+".got", []byte(stdout), 0o644)
				t.Errorf("the %s floor's conformance differs from %s; this run's output is in %s.got", engine, golden, golden)
			}
		})
	}
}
