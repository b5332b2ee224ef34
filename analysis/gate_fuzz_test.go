package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gateSeeds are artifacts for Load: a good one, and broken values (non-finite, negative, mismatched).
var gateSeeds = []string{
	`{"schema": 1, "tool": "bench-bridge", "target": "linux", "program": "floor", "complete": true,
  "device": {}, "settings": {"samples": 3, "min_time_ns": 1, "warmup_ns": 1}, "timer_overhead_ns": 20,
  "cases": [
    {"name": "ref_js_loop", "iterations": 5, "samples_ns": [10, 11, 12], "median_ns": 11, "ci_low_ns": 10, "ci_high_ns": 12, "ci_level": 0.75, "ratio_to_ref": 1},
    {"name": "callback", "crossing": true, "iterations": 5, "samples_ns": [30, 33, 36], "median_ns": 33, "ci_low_ns": 30, "ci_high_ns": 36, "ci_level": 0.75, "ratio_to_ref": 3}
  ], "failures": [], "warnings": []}`,
	`{"schema": 1, "target": "linux", "program": "floor", "cases": null}`,
	`{"schema": 2, "target": "linux", "program": "bridge", "cases": [{"name": "callback", "median_ns": 1e309}]}`,
	`{"schema": 1, "target": "t", "program": "floor", "cases": [{"name": "callback", "samples_ns": [1], "median_ns": 1, "ci_low_ns": 1, "ci_high_ns": 1, "ratio_to_ref": -1, "instructions_per_op": 0}]}`,
	`{"schema": 1`, `[]`, `{"schema": "1"}`,
}

// FuzzLoad: Load of any file (alone, and in a directory beside a good artifact) gives artifacts or an error that
// names the file; a file it loads compares with itself without a regression.
func FuzzLoad(f *testing.F) {
	for _, s := range gateSeeds {
		f.Add(s)
	}
	dir := f.TempDir()
	good := filepath.Join(dir, "a-good.json")
	if err := os.WriteFile(good, []byte(gateSeeds[0]), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		file := filepath.Join(dir, "b-fuzz.json")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		loaded, err := Load(file)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if _, err := Load(dir); err != nil && !strings.Contains(err.Error(), "two artifacts") {
			t.Fatalf("the directory does not load when its files do: %v", err)
		}
		a := loaded[0].Artifact
		r, err := Judge(a, a, file, file, Options{}.WithDefaults())
		if err == nil && len(r.Regressions()) > 0 {
			t.Fatalf("an artifact regressed against itself: %v", r.Regressions())
		}
	})
}
