package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareWritesThePRReport: compare --report writes the report and appends it to $GITHUB_STEP_SUMMARY.
func TestCompareWritesThePRReport(t *testing.T) {
	cfg := fakeBridge(t)
	dir := t.TempDir()
	report, summary := filepath.Join(dir, "report.md"), filepath.Join(dir, "summary.md")
	os.WriteFile(summary, []byte("before\n"), 0o644)
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	fs := newFakes(false, false, &fakeTarget{name: "fake-a"})
	code := fs.run("compare", "fake-a", "fake", "fake:slowdown=0.5", "--config", cfg, "--cases", "script_to_host_scalar", "--runs", "8",
		"--samples", "1", "--min-time", "1ms", "--out", filepath.Join(dir, "out"), "--gate", "--report", report)
	got, err := os.ReadFile(report)
	if code != 3 || err != nil || !strings.HasPrefix(string(got), "### :x: bench-bridge: slower: fake fake-a slowdown=0.5: script_to_host_scalar") ||
		!strings.Contains(string(got), "| script_to_host_scalar | +") {
		t.Fatalf("exit %d, %v, report:\n%s\n%s", code, err, got, fs.stderr.String())
	}
	if s, _ := os.ReadFile(summary); string(s) != "before\n"+string(got) {
		t.Errorf("$GITHUB_STEP_SUMMARY:\n%s", s)
	}
}
