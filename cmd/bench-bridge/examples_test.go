package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// copyExample copies examples/NAME into a fresh folder, as a user would start from it, and returns its config.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "..", "examples", name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "bench-bridge.toml")
}

// measureExample copies examples/NAME and measures it from its bench-bridge.toml with a short budget, as
// docs/bridge.md says; it returns the artifact and the example's folder.
func measureExample(t *testing.T, name string) (*artifact.Artifact, string) {
	t.Helper()
	cfg := copyExample(t, name)
	out := filepath.Join(filepath.Dir(cfg), "out.json")
	stdout, stderr, code := run(t, localName(), "--config", cfg, "--bridge", name, "--runs", "1", "--samples", "3", "--min-time", "2ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	return readArtifact(t, out), filepath.Dir(cfg)
}

// TestExampleCppBridge builds examples/cpp-quickjs (C++ against the harness and the shared case table, with
// nlohmann-json) and measures every case.
func TestExampleCppBridge(t *testing.T) {
	requireCC(t)
	testenv.Require(t, "g++", "apt-get install g++ (scripts/setup does it)")
	requireFile(t, "/usr/include/nlohmann/json.hpp", "apt-get install nlohmann-json3-dev (scripts/setup does it)")
	a, _ := measureExample(t, "cpp-quickjs")
	if !a.Complete || len(a.Failures) > 0 || len(a.Cases) != len(cases.Catalogue) || a.Codec != "nlohmann-json" {
		t.Fatalf("artifact: complete=%v codec=%q %d cases, failures %+v", a.Complete, a.Codec, len(a.Cases), a.Failures)
	}
	if a.Device.QuickJS != "2025-04-26" || !strings.Contains(a.Device.Compiler, "CXX=g++") || !strings.Contains(a.Device.CFlags, "CXXFLAGS=") {
		t.Errorf("the artifact does not say what the build was handed: compiler %q, flags %q", a.Device.Compiler, a.Device.CFlags)
	}
}

// TestExampleJSC builds examples/jsc, a bridge over JavaScriptCore's C API linked with the harness, and measures it:
// three cases, the others not implemented, and the engine it names.
func TestExampleJSC(t *testing.T) {
	requireCC(t)
	testenv.Require(t, "make", "apt-get install make (scripts/setup does it)")
	requireFile(t, "/usr/include/webkitgtk-4.1/JavaScriptCore/JavaScript.h", "apt-get install libjavascriptcoregtk-4.1-dev (scripts/setup does it)")
	a, _ := measureExample(t, "jsc")
	requireThreeCases(t, a)
	if a.Engine.Name != "jsc" || a.Engine.Version == "" || a.Codec != "jsc-class" || a.Device.QuickJS != "" {
		t.Errorf("provenance: engine %+v, codec %q, quickjs %q: want JavaScriptCore's, and no QuickJS", a.Engine, a.Codec, a.Device.QuickJS)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "jsc", "bridge.c"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n > 200 {
		t.Errorf("examples/jsc/bridge.c has %d lines: the harness should keep a bridge of three cases under 200", n)
	}
}

// TestFrozenHarnessBuild builds a user's C++ bridge with build files frozen from the release of 2026-12-01 (commit
// 32f4e63: the Makefile compiles $BENCH_BRIDGE_HARNESS/harness.c alone, as docs/bridge.md then said) around today's
// examples/cpp-quickjs/bridge.cpp, and measures two of its cases once: the harness's build interface is a contract.
func TestFrozenHarnessBuild(t *testing.T) {
	requireCC(t)
	testenv.Require(t, "g++", "apt-get install g++ (scripts/setup does it)")
	requireFile(t, "/usr/include/nlohmann/json.hpp", "apt-get install nlohmann-json3-dev (scripts/setup does it)")
	dir := filepath.Join(t.TempDir(), "frozen")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "frozen-harness-2026-12-01"))); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "cpp-quickjs", "bridge.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bridge.cpp"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	stdout, stderr, code := run(t, localName(), "--config", filepath.Join(dir, "bench-bridge.toml"), "--bridge", "cpp-quickjs",
		"--cases", "script_to_host_scalar", "--runs", "1", "--samples", "3", "--min-time", "2ms", "--out", out)
	if code != 0 {
		t.Fatalf("the frozen build: exit %d\n%s\n%s", code, stdout, stderr)
	}
	a := readArtifact(t, out)
	var names []string
	for _, c := range a.Cases {
		names = append(names, c.Name)
	}
	if !a.Complete || len(a.Failures) > 0 || !slices.Equal(names, []string{"ref_js_loop", "script_to_host_scalar"}) || a.Meta["engine"] != "quickjs 2025-04-26" {
		t.Fatalf("artifact: complete=%v cases %v failures %+v meta %v", a.Complete, names, a.Failures, a.Meta)
	}
}

// TestExampleDuktape builds examples/duktape, a program of another engine that speaks the protocol itself, and
// measures it: all cases are asked for; it lists three, and the others are recorded as not implemented.
func TestExampleDuktape(t *testing.T) {
	requireCC(t)
	requireFile(t, "/usr/include/duktape.h", "apt-get install duktape-dev (scripts/setup does it)")
	a, dir := measureExample(t, "duktape")
	requireThreeCases(t, a)
	if a.Meta["engine"] != "duktape 2.7.0" || a.Device.QuickJS != "" || a.Codec != "duktape-stack" || !strings.HasPrefix(a.Device.Compiler, "gcc ") {
		t.Errorf("provenance: meta %v, quickjs %q, codec %q, compiler %q: want Duktape's own, and no QuickJS version", a.Meta, a.Device.QuickJS, a.Codec, a.Device.Compiler)
	}
	// Beside an artifact of QuickJS (from another machine: the device differences are named first, then the kinds of
	// the others), show says the engines differ; artifact.TestSameDeviceAndDifferences names them.
	stdout, stderr, code := run(t, "show", filepath.Join("..", "..", "docs", "reports", "bench", "floor-linux.json"), filepath.Join(dir, "out.json"))
	if code != 0 || !strings.Contains(stdout+stderr, "different engines") {
		t.Errorf("show of a QuickJS and the Duktape artifact does not name the engines: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, "check", filepath.Join(dir, "duktape-bench"))
	if code != 0 || !strings.Contains(stdout, "speaks the protocol") {
		t.Errorf("bench-bridge check of the Duktape example: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, stderr, code := run(t, "check", "/bin/true"); code != 1 || !strings.Contains(stderr, "problems in") {
		t.Errorf("bench-bridge check /bin/true: exit %d, %s", code, stderr)
	}
}

// requireThreeCases fails t unless a, an example over another engine, measured its three cases whole and recorded
// the catalogue's others as not implemented.
func requireThreeCases(t *testing.T, a *artifact.Artifact) {
	t.Helper()
	var names []string
	for _, c := range a.Cases {
		names = append(names, c.Name)
	}
	if !a.Complete || !slices.Equal(names, []string{"ref_js_loop", "script_to_host_scalar", "callback"}) || len(a.Failures) > 0 || len(a.NotImplemented) != len(cases.Catalogue)-3 {
		t.Fatalf("artifact: complete=%v cases %v failures %+v, not implemented %v", a.Complete, names, a.Failures, a.NotImplemented)
	}
}

// requireFile fails (in CI) or skips the test when a header of a Debian package is missing.
func requireFile(t *testing.T, path, install string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		testenv.Missing(t, path+" not found: "+install)
	}
}
