package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/stats"
)

// gateArtifact writes an artifact of ref_js_loop and script_to_host_scalar whose samples sit around the given
// medians (±1%), with instruction counts.
func gateArtifact(t *testing.T, path string, refNs, scalarNs, refInstr float64) {
	t.Helper()
	a := &artifact.Artifact{Schema: artifact.Schema, Tool: "test", Target: "linux", Kind: artifact.ProgramBridge, Codec: "json",
		Complete: true, Device: artifact.Device{OS: "Linux", Arch: "x86_64", CPUModel: "Test CPU", Cores: 2, Compiler: "gcc"},
		Failures: []artifact.Failure{}, Warnings: []string{}}
	for _, c := range []struct {
		name   string
		ns     float64
		instr  float64
		crosss bool
	}{{"ref_js_loop", refNs, refInstr, false}, {"script_to_host_scalar", scalarNs, 19041, true}} {
		ac := artifact.Case{Name: c.name, Crossing: c.crosss, Iterations: 1000}
		for i := range 10 {
			ac.SamplesNs = append(ac.SamplesNs, c.ns*(0.99+0.002*float64(i)))
		}
		s := stats.Summarize(ac.SamplesNs, 0.95)
		ac.MedianNs, ac.PILowNs, ac.PIHighNs, ac.PILevel = s.Median, s.Low, s.High, s.Confidence
		n := c.instr
		ac.InstructionsPerOp = &n
		a.Cases = append(a.Cases, ac)
	}
	// One protocol 1 process: every case divides by the process's own ref_js_loop.
	a.Processes = []artifact.Process{{Protocol: 1}}
	for i := range a.Cases {
		c := &a.Cases[i]
		pr := c.MedianNs / a.Cases[0].MedianNs
		p := artifact.CaseProcess{Iterations: c.Iterations, SamplesNs: c.SamplesNs, MedianNs: c.MedianNs,
			RefMedianNs: a.Cases[0].MedianNs, RatioToRef: &pr}
		if i > 0 {
			p.RefSamplesNs = a.Cases[0].SamplesNs
		}
		c.Processes = []artifact.CaseProcess{p}
		r := stats.LeastOverLeast(c.ProcessSamples(), 0).Ratio
		c.RatioToRef = &r
	}
	if err := artifact.Write(path, a); err != nil {
		t.Fatal(err)
	}
}

// Thresholds that are no thresholds are refused, from a flag or from the config, where before they switched the
// gate off and let a case three times slower pass with exit 0.
func TestGateRefusesThresholdsThatSwitchItOff(t *testing.T) {
	dir := t.TempDir()
	base, slow := filepath.Join(dir, "base.json"), filepath.Join(dir, "slow.json")
	gateArtifact(t, base, 20, 1000, 450)
	gateArtifact(t, slow, 20, 3000, 450)
	empty := filepath.Join(dir, "empty.toml")
	os.WriteFile(empty, nil, 0o644)
	if _, stderr, code := run(t, "gate", "--config", empty, base, slow); code != exitRegressed {
		t.Fatalf("3x slower with the defaults: exit %d, want %d\n%s", code, exitRegressed, stderr)
	}
	config := func(text string) string {
		path := filepath.Join(t.TempDir(), "bench-bridge.toml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"--alpha NaN", []string{"--alpha", "NaN"}, "--alpha NaN: not a significance level"},
		{"--alpha Inf", []string{"--alpha", "Inf"}, "--alpha +Inf: not a significance level"},
		{"--alpha 0", []string{"--alpha", "0"}, "--alpha 0: not a significance level"},
		{"--alpha 1", []string{"--alpha", "1"}, "--alpha 1: not a significance level"},
		{"--min-effect Inf", []string{"--min-effect", "Inf"}, "--min-effect +Inf: not a relative change"},
		{"--min-effect NaN", []string{"--min-effect", "NaN"}, "--min-effect NaN: not a relative change"},
		{"--min-effect -0.1", []string{"--min-effect", "-0.1"}, "--min-effect -0.1: not a relative change"},
		{"config alpha = nan", []string{"--config", config("[gate]\nalpha = nan\n")}, "bench-bridge.toml:1: gate.alpha is NaN: not a significance level"},
		{"config min_effect = inf", []string{"--config", config("[gate]\nmin_effect = inf\n")}, "bench-bridge.toml:1: gate.min_effect is +Inf: not a relative change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"gate"}, tt.args...), base, slow)
			_, stderr, code := run(t, args...)
			if code != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("bench-bridge %s: exit %d, stderr %q; want 1 and %q", strings.Join(args, " "), code, stderr, tt.want)
			}
		})
	}
}

// A reference instruction count of 0 made every case "improved"; now the artifact is refused, naming file and field.
func TestGateRefusesAZeroReferenceCount(t *testing.T) {
	dir := t.TempDir()
	base, cur := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	gateArtifact(t, base, 20, 1000, 450)
	gateArtifact(t, cur, 20, 1000, 450)
	data, _ := os.ReadFile(cur)
	zero := strings.Replace(string(data), `"instructions_per_op": 450`, `"instructions_per_op": 0`, 1)
	if zero == string(data) {
		t.Fatal("no reference count to change")
	}
	os.WriteFile(cur, []byte(zero), 0o644)
	empty := filepath.Join(dir, "empty.toml")
	os.WriteFile(empty, nil, 0o644)
	_, stderr, code := run(t, "gate", "--metric", "instructions", "--config", empty, base, cur)
	want := cur + `: cases[0] (ref_js_loop): field "instructions_per_op" is 0, want a positive count`
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}
