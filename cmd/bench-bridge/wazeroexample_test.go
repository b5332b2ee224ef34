package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestExampleWazero measures examples/wazero, a bridge of a user's over wazero on the Go harness, from its own
// bench-bridge.toml (its build compiles the guest with wat2wasm and runs go build in its folder), with the smallest
// settings: a crossing each way and the guest's trap, and runs bench-bridge check on the program it built.
func TestExampleWazero(t *testing.T) {
	requireGo(t)
	requireCC(t) // a bridge with a build command gets QuickJS's objects built for it, which this one does not use
	testenv.Require(t, "wat2wasm", "apt-get install wabt (scripts/setup does it)")
	dir := filepath.Join("..", "..", "examples", "wazero")
	out := filepath.Join(t.TempDir(), "wazero.json")
	want := []string{cases.RefCase, "script_to_host_scalar", "host_to_script_scalar", "error_script_to_host"}
	stdout, stderr, code := run(t, localName(), "--bridge", "wazero", "--config", filepath.Join(dir, "bench-bridge.toml"),
		"--runs", "1", "--samples", "1", "--min-time", "1ms", "--cases", strings.Join(want[1:], ","), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	a := readArtifact(t, out)
	measured := slices.IndexFunc(want, func(c string) bool { return a.Case(c) == nil }) < 0 && len(a.Cases) == len(want)
	if !a.Complete || len(a.Failures) > 0 || !measured || a.Engine.Name != "wazero" || a.Codec != "wazero-withfunc" ||
		a.Meta["program"] != "bridge" {
		t.Fatalf("artifact: complete=%v %d cases (want %v) failures %+v engine %+v codec %q meta %v", a.Complete,
			len(a.Cases), want, a.Failures, a.Engine, a.Codec, a.Meta)
	}
	if stdout, stderr, code := run(t, "check", filepath.Join(dir, "bench")); code != 0 || !strings.Contains(stdout, "speaks the protocol") {
		t.Errorf("bench-bridge check of examples/wazero: exit %d\n%s%s", code, stdout, stderr)
	}
}
