package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/engines"
)

// TestV8WasmFloor measures V8's WebAssembly's floor (node running its addon, the guest hosted by JavaScript) on this
// machine, every case of the catalogue once with the smallest settings: the guest hosts them all and none fails (each
// case's set-up checks what the host and the guest do), the artifact names the engine at node's V8, and bench-bridge check passes the program, whose
// crossings, counted in JavaScript, get the busy work of --slowdown.
func TestV8WasmFloor(t *testing.T) {
	requireCC(t)
	requireEngine(t, engines.V8Wasm)
	out := filepath.Join(t.TempDir(), "floor.json")
	stdout, stderr, code := run(t, "floor", localName(), "--engine", engines.V8Wasm, "--runs", "1", "--samples", "1", "--min-time", "1ms", "--out", out)
	if code != 0 {
		t.Fatalf("floor --engine %s: exit %d\n%s\n%s", engines.V8Wasm, code, stdout, stderr)
	}
	a := readArtifact(t, out)
	if a.Engine.Name != engines.V8Wasm || !strings.Contains(a.Engine.Version, "-node.") || !a.Complete || len(a.Failures) > 0 ||
		len(a.Cases) != len(cases.Catalogue) || len(a.NotImplemented) > 0 || a.Cases[0].Name != cases.RefCase {
		t.Fatalf("artifact: engine %+v complete=%v, %d cases, failures %+v, not implemented %v", a.Engine, a.Complete, len(a.Cases), a.Failures, a.NotImplemented)
	}
	prog, err := build.BuildEngineFloor(context.Background(), build.Host(), engines.V8Wasm, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// check runs a crossing with --slowdown, and notes a program whose crossings got no busy work
	if stdout, stderr, code := run(t, "check", prog.Path); code != 0 || !strings.Contains(stdout, "speaks the protocol") ||
		strings.Contains(stdout+stderr, "busy work is not called") {
		t.Errorf("bench-bridge check of the %s floor: exit %d\n%s%s", engines.V8Wasm, code, stdout, stderr)
	}
}
