package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// requireGo skips the test under -short (it builds and runs Go programs), and fails it in CI (skips it elsewhere)
// without the go command.
func requireGo(t *testing.T) {
	t.Helper()
	testenv.SkipInShort(t, "builds and runs Go bench programs")
	testenv.Require(t, "go", "install Go 1.26 or later from https://go.dev/dl/")
}

// TestExampleGoja measures examples/goja, a bridge of a user's in Go on the Go harness, from its own
// bench-bridge.toml (its build runs go build in its folder, in this module), with the smallest settings, and runs
// bench-bridge check on the program it built.
func TestExampleGoja(t *testing.T) {
	requireGo(t)
	requireCC(t) // a bridge with a build command gets QuickJS's objects built for it, which this one does not use
	dir := filepath.Join("..", "..", "examples", "goja")
	out := filepath.Join(t.TempDir(), "goja.json")
	stdout, stderr, code := run(t, localName(), "--bridge", "goja", "--config", filepath.Join(dir, "bench-bridge.toml"),
		"--runs", "1", "--samples", "1", "--min-time", "1ms", "--cases", "script_to_host_scalar", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	a := readArtifact(t, out)
	var names []string
	for _, c := range a.Cases {
		names = append(names, c.Name)
	}
	if !a.Complete || len(a.Failures) > 0 || !slices.Equal(names, []string{cases.RefCase, "script_to_host_scalar"}) ||
		a.Engine.Name != "goja" || a.Codec != "goja-export" || a.Meta["program"] != "bridge" || a.Device.QuickJS != "" {
		t.Fatalf("artifact: complete=%v cases %v failures %+v engine %+v codec %q meta %v quickjs %q", a.Complete, names, a.Failures,
			a.Engine, a.Codec, a.Meta, a.Device.QuickJS)
	}
	if stdout, stderr, code := run(t, "check", filepath.Join(dir, "bench")); code != 0 || !strings.Contains(stdout, "speaks the protocol") {
		t.Errorf("bench-bridge check of examples/goja: exit %d\n%s%s", code, stdout, stderr)
	}
}
