package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nightly runs scripts/nightly from the repository, with the built bench-bridge measuring the bridge that cfg
// declares, and returns its exit status and summary.
func nightly(t *testing.T, cfg, out, baseline string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"../../scripts/nightly"}, args...)...)
	cmd.Env = append(os.Environ(), "NIGHTLY_OUT="+out, "NIGHTLY_BASELINE="+baseline, "GITHUB_STEP_SUMMARY=",
		"BENCH_BRIDGE_BIN="+cli(t), "NIGHTLY_METRIC=time",
		"NIGHTLY_FLAGS=--config "+cfg+" --bridge fixed --cases script_to_host_scalar --runs 4 --samples 4")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	summary, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if len(args) == 0 || args[0] != "accept" {
		t.Logf("scripts/nightly %s: exit %d\n%s", strings.Join(args, " "), code, log.String())
	}
	return code, string(summary)
}

// TestNightly walks the nightly's life: no baseline is an error, a run accepted as the baseline, then a run gated
// against it passes. The bridge measured is a script whose samples never move, so that the gate's verdict is the
// script's doing, not the machine's.
func TestNightly(t *testing.T) {
	if localName() != "linux" {
		t.Skip("the nightly's default target is linux")
	}
	dir := t.TempDir()
	out, baseline, cfg := filepath.Join(dir, "out"), filepath.Join(dir, "baseline"), filepath.Join(dir, "bench-bridge.toml")
	protocolScript(t, filepath.Join(dir, "fixed"))
	if err := os.WriteFile(cfg, []byte("[bridges.fixed]\nbinary = \"fixed\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	code, summary := nightly(t, cfg, out, baseline, "linux")
	if code != 1 || !strings.Contains(summary, "linux: no baseline") {
		t.Fatalf("without a baseline: exit %d, want 1\n%s", code, summary)
	}
	if code, _ := nightly(t, cfg, out, baseline, "accept", "linux"); code != 0 {
		t.Fatalf("accept: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(baseline, "linux.json")); err != nil {
		t.Fatal(err)
	}
	code, summary = nightly(t, cfg, out, baseline, "linux")
	if code != 0 || !strings.Contains(summary, "gate: ok, nothing regressed") || !strings.Contains(summary, "| `script_to_host_scalar` |") {
		t.Fatalf("against its own baseline: exit %d, want 0\n%s", code, summary)
	}
	if code, _ := nightly(t, cfg, out, baseline, "accept", "webos"); code != 1 {
		t.Errorf("accepting a target that was not measured: exit %d, want 1", code)
	}
}
