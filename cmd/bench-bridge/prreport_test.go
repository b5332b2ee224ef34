package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPRReport: the report says the verdict first, then the cases that changed with their size and interval, then
// what it could not judge.
func TestPRReport(t *testing.T) {
	var b strings.Builder
	err := renderPRReport(&b, prReport{Base: "mine@0123456789ab linux", Head: "mine linux", Threshold: 0.1,
		Regressed: []string{"callback"}, Same: 3, Notes: []string{"sequential: 12 rounds"},
		Changed:  []prCase{{Case: "callback", Verdict: "regressed", Change: 0.25, Lo: 0.2, Hi: 0.31, HasInterval: true}},
		Unjudged: []prCase{{Case: "bytes_64k", Verdict: "missing", Why: "measured in the baseline only"}}})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := []string{"### :x: bench-bridge: slower: callback", "`mine linux` against `mine@0123456789ab linux`",
		"| callback | +25.0% | +20.0% to +31.0% | regressed |", "3 cases with no change", "**Could not judge:**",
		"- bytes_64k: measured in the baseline only", "> sequential: 12 rounds"}
	last := -1
	for _, w := range want {
		i := strings.Index(out, w)
		if i <= last {
			t.Fatalf("want %q after what comes before it in\n%s", w, out)
		}
		last = i
	}
}

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
