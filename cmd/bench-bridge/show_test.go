package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/analysis"
)

// show of artifacts from two devices says so in one line and prints no p-value: only ×ref compares.
func TestShowAcrossDevices(t *testing.T) {
	a, b := "../../reports/testdata/json.json", "../../reports/testdata/arm-emulated.json"
	stdout, stderr, code := run(t, "show", a, b)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := "warning: " + a + " and " + b + " come from different CPUs (Test CPU, ARMv7 Processor rev 10 (v7l))"
	if strings.Count(stdout, "come from different") != 1 || !strings.Contains(stdout, want) {
		t.Errorf("want one warning line %q:\n%s", want, stdout)
	}
	if strings.Contains(stdout, "p=") || strings.Contains(stdout, "±0%") {
		t.Errorf("a p-value or a ±0%% interval across devices:\n%s", stdout)
	}
	if !strings.Contains(stdout, "json webos (emulated) ns/op") {
		t.Errorf("the emulated artifact is not marked next to its numbers:\n%s", stdout)
	}
}

// TestShowJudgesAsGate: show judges a pair by the gate's thresholds, from the config's [gate] section and from
// --min-effect over it, and its verdict is gate's on the same pair with the same thresholds.
func TestShowJudgesAsGate(t *testing.T) {
	cfg := fakeBridge(t)
	dir := t.TempDir()
	base := measureFake(t, cfg, dir, "base.json")
	slow := measureFake(t, cfg, dir, "slow.json", "--slowdown", "0.5")
	lenient := filepath.Join(dir, "lenient.toml")
	body, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lenient, append(body, "[gate]\nmin_effect = 0.9\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want analysis.Verdict
	}{
		{"defaults", []string{"--config", cfg}, analysis.Regressed},
		{"the config's minimum", []string{"--config", lenient}, analysis.Same},
		{"--min-effect over the config", []string{"--config", lenient, "--min-effect", "0.1"}, analysis.Regressed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakes(false, false)
			if code := fs.run(append([]string{"show", "--format", "json", base, slow}, tc.args...)...); code != 0 {
				t.Fatalf("show: exit %d\n%s", code, fs.stderr.String())
			}
			var table struct {
				Rows []struct {
					Case  string `json:"case"`
					Cells []struct {
						Comparison *struct {
							Verdict analysis.Verdict `json:"verdict"`
						} `json:"comparison"`
					} `json:"cells"`
				} `json:"rows"`
			}
			if err := json.Unmarshal([]byte(fs.stdout.String()), &table); err != nil {
				t.Fatal(err)
			}
			var shown analysis.Verdict
			for _, r := range table.Rows {
				if r.Case == "script_to_host_scalar" && len(r.Cells) == 2 && r.Cells[1].Comparison != nil {
					shown = r.Cells[1].Comparison.Verdict
				}
			}
			gs := newFakes(false, false)
			code := gs.run(append([]string{"gate", base, slow}, tc.args...)...)
			gated := map[int]analysis.Verdict{0: analysis.Same, exitRegressed: analysis.Regressed}[code]
			if shown != tc.want || gated != tc.want {
				t.Errorf("show says %q, gate exits %d (%q); want %q\n%s", shown, code, gated, tc.want, gs.stdout.String())
			}
		})
	}
}
