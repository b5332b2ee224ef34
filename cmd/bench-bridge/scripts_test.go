package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestScriptsBenchReadsTheCallersConfig runs scripts/bench, with the built bench-bridge, from another folder:
// bench-bridge must run there and read that folder's bench-bridge.toml (its target shows in `targets`).
func TestScriptsBenchReadsTheCallersConfig(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "bench"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bench-bridge.toml"), []byte("[targets.callers-board]\nkind = \"local\"\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "targets")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BENCH_BRIDGE_BIN="+cli(t))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "callers-board") {
		t.Fatalf("scripts/bench targets from %s: %v\n%s", dir, err, out)
	}
}
