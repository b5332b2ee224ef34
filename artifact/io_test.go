package artifact

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func sample() *Artifact {
	r := 1.0
	return &Artifact{
		Schema: Schema, Tool: "bench-bridge test", Target: "linux", Program: ProgramBridge, Codec: "json", Complete: true,
		StartedAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Session:   Session{ID: "s1", Programs: []string{"json linux"}, Order: []int{0}, Seed: 1},
		Processes: []Process{{CaseOrder: []string{"ref_js_loop"}, Protocol: 2}},
		Cases: []Case{{Name: "ref_js_loop", Iterations: 100, SamplesNs: []float64{10, 11, 12}, MedianNs: 11,
			CILowNs: 10, CIHighNs: 12, CILevel: 0.75, RatioToRef: &r,
			Processes: []CaseProcess{{Iterations: 100, SamplesNs: []float64{10, 11, 12}, MedianNs: 11, RefMedianNs: 11, RatioToRef: &r}}}},
		Failures: []Failure{}, Warnings: []string{},
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "a.json")
	if err := Write(path, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Target != "linux" || got.Case("ref_js_loop") == nil || *got.Case("ref_js_loop").RatioToRef != 1 {
		t.Fatalf("round trip lost data: %+v", got)
	}
	// No temporary files are left beside the artifact.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("want only the artifact in its directory, have %d entries", len(entries))
	}
}

func TestReadErrorsNameTheFileAndPlace(t *testing.T) {
	valid, err := os.ReadFile(writeTemp(t, sample()))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "empty file"},
		{"truncated", string(valid[:len(valid)/2]), "truncated JSON"},
		{"syntax", "{\n  \"schema\": 1,\n  \"target\": linux\n}", "line 3, column"},
		{"foreign", `{"name": "left-pad", "version": "1.3.0"}`, "not a bench-bridge artifact"},
		{"future schema", `{"schema": 99}`, "schema 99 is not supported"},
		{"wrong type", strings.Replace(string(valid), `"iterations": 100`, `"iterations": "many"`, 1), `field "cases.iterations"`},
		{"bad program", strings.Replace(string(valid), `"program": "bridge"`, `"program": "banana"`, 1), `"program" is "banana"`},
		{"no samples", strings.Replace(string(valid), `"samples_ns": [
        10,
        11,
        12
      ]`, `"samples_ns": []`, 1), `cases[0] (ref_js_loop): field "samples_ns" is empty`},
		{"process index", strings.Replace(string(valid), `"process": 0`, `"process": 3`, 1), `processes[0]: field "process" is 3`},
		{"interval", strings.Replace(string(valid), `"ci_high_ns": 12`, `"ci_high_ns": 10.5`, 1), "does not contain median_ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.json")
			os.WriteFile(path, []byte(tt.data), 0o644)
			_, err := Read(path)
			if err == nil {
				t.Fatal("want an error")
			}
			if !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q: want it to start with the file name and contain %q", err, tt.want)
			}
		})
	}
}

// A schema 1 artifact (one process, ref_js_loop measured once) reads as the current schema with that one process.
func TestReadsSchema1(t *testing.T) {
	v1 := `{"schema": 1, "tool": "bench-bridge", "target": "linux", "program": "floor", "complete": true,
	  "device": {}, "settings": {"samples": 3, "min_time_ns": 1, "warmup_ns": 1}, "timer_overhead_ns": 20,
	  "cases": [
	    {"name": "ref_js_loop", "iterations": 5, "samples_ns": [10, 11, 12], "median_ns": 11, "ci_low_ns": 10, "ci_high_ns": 12, "ci_level": 0.75, "ratio_to_ref": 1},
	    {"name": "callback", "crossing": true, "iterations": 5, "samples_ns": [30, 33, 36], "median_ns": 33, "ci_low_ns": 30, "ci_high_ns": 36, "ci_level": 0.75, "ratio_to_ref": 3}
	  ], "failures": [], "warnings": []}`
	a, err := Parse([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	if a.Schema != Schema || a.Settings.Runs != 1 || len(a.Processes) != 1 || a.Processes[0].Protocol != 1 {
		t.Fatalf("converted: schema %d, runs %d, processes %+v", a.Schema, a.Settings.Runs, a.Processes)
	}
	if got := a.Processes[0].CaseOrder; !slices.Equal(got, []string{"ref_js_loop", "callback"}) {
		t.Errorf("case order %v", got)
	}
	cb := a.Case("callback")
	if len(cb.Processes) != 1 || cb.Processes[0].MedianNs != 33 || cb.Processes[0].RefMedianNs != 11 || *cb.Processes[0].RatioToRef != 3 {
		t.Errorf("callback's process: %+v", cb.Processes)
	}
	if !slices.Equal(cb.ProcessMedians(), []float64{33}) || !slices.Equal(cb.ProcessRatios(), []float64{3}) {
		t.Errorf("process medians %v, ratios %v", cb.ProcessMedians(), cb.ProcessRatios())
	}
}

func writeTemp(t *testing.T, a *Artifact) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.json")
	if err := Write(path, a); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFormatNs(t *testing.T) {
	for ns, want := range map[float64]string{0.5: "0.50ns", 26.34: "26.3ns", 999.9: "1.00µs", 4213: "4.21µs", 105e6: "105ms", 2.5e9: "2.50s"} {
		if got := FormatNs(ns); got != want {
			t.Errorf("FormatNs(%v) = %q, want %q", ns, got, want)
		}
	}
}

// TestEmulatedReason: the reason goes out and comes back; an artifact from before the field reads with none, and
// one that is not emulated writes none.
func TestEmulatedReason(t *testing.T) {
	a := sample()
	a.Device.Emulated, a.Device.EmulatedReason = true, "the run prefix runs the program under qemu-arm"
	got, err := Read(writeTemp(t, a))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Device.Emulated || got.Device.EmulatedReason != a.Device.EmulatedReason {
		t.Errorf("round trip: %+v", got.Device)
	}
	b, _ := os.ReadFile(writeTemp(t, sample()))
	if strings.Contains(string(b), "emulated_reason") {
		t.Errorf("a native run wrote an emulated_reason")
	}
	old := strings.Replace(string(b), `"emulated": false`, `"emulated": true`, 1)
	if old == string(b) {
		t.Fatal("no emulated field to change in the written artifact")
	}
	got, err = Parse([]byte(old))
	if err != nil || !got.Device.Emulated || got.Device.EmulatedReason != "" {
		t.Errorf("an artifact from before the field: %+v, %v", got, err)
	}
}
