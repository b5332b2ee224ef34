package artifact

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/stats"
)

// two is a valid artifact of ref_js_loop and one crossing case whose ratio is 4.3, measured in one process.
func two() *Artifact {
	a := sample()
	r, n, ref, x := 4.3, 1800.0, 450.0, 1e6/44.0 // the least sample 43 over the least ref sample 10
	a.Cases[0].InstructionsPerOp = &ref
	pr := 4.0 // the process's median 44 over its ref median 11
	a.Cases = append(a.Cases, Case{Name: "callback", Crossing: true, Iterations: 100, SamplesNs: []float64{43, 44, 45},
		MedianNs: 44, PILowNs: 43, PIHighNs: 45, PILevel: 0.75, RatioToRef: &r, CrossingsPerMs: &x, InstructionsPerOp: &n,
		Processes: []CaseProcess{{Iterations: 100, SamplesNs: []float64{43, 44, 45}, MedianNs: 44,
			RefSamplesNs: []float64{10, 11, 12}, RefMedianNs: 11, RatioToRef: &pr}}})
	return a
}

func TestValidateNumbers(t *testing.T) {
	tests := []validateCase{
		{"valid", func(*Artifact) {}, ""},
		{"ref instructions 0", func(a *Artifact) { *a.Cases[0].InstructionsPerOp = 0 },
			`cases[0] (ref_js_loop): field "instructions_per_op" is 0, want a positive count`},
		{"negative instructions", func(a *Artifact) { *a.Cases[1].InstructionsPerOp = -5 },
			`cases[1] (callback): field "instructions_per_op" is -5`},
		{"ratio that disagrees with the medians", func(a *Artifact) { *a.Cases[1].RatioToRef = 0.4 },
			`cases[1] (callback): field "ratio_to_ref" is 0.4, but the least processes[].samples_ns over the least processes[].ref_samples_ns is 4.3`},
		{"process ratio that disagrees with its medians", func(a *Artifact) { *a.Cases[1].Processes[0].RatioToRef = 3 },
			`cases[1] (callback): processes[0]: field "ratio_to_ref" is 3, but median_ns over ref_median_ns is 4`},
		{"process ratio without a ref median", func(a *Artifact) { a.Cases[1].Processes[0].RefMedianNs, a.Cases[1].Processes[0].RefSamplesNs = 0, nil },
			`processes[0]: field "ratio_to_ref" is 4, but ref_median_ns is 0`},
		{"ref median that is not its samples'", func(a *Artifact) { a.Cases[1].Processes[0].RefMedianNs = 12 },
			`processes[0]: field "ref_median_ns" is 12, but the median of its ref_samples_ns is 11`},
		{"ratio outside its interval", func(a *Artifact) { lo, hi := 4.5, 5.0; a.Cases[1].RatioPILow, a.Cases[1].RatioPIHigh = &lo, &hi },
			`field "ratio_to_ref" is 4.3, outside its interval`},
		{"median that is not the processes'", func(a *Artifact) { a.Cases[1].MedianNs, a.Cases[1].PIHighNs = 45, 45 },
			`cases[1] (callback): field "median_ns" is 45, but the median of processes[].median_ns in the fastest state is 44`},
		{"process median that is not its samples'", func(a *Artifact) { a.Cases[1].Processes[0].MedianNs = 43 },
			`cases[1] (callback): processes[0]: field "median_ns" is 43, but the median of its samples_ns is 44`},
		{"negative ratio", func(a *Artifact) { *a.Cases[1].RatioToRef = -4 }, `field "ratio_to_ref" is -4`},
		{"negative process timer overhead", func(a *Artifact) { a.Processes[0].TimerOverheadNs = -3 }, `processes[0]: field "timer_overhead_ns" is -3`},
		{"ratio without a ref", func(a *Artifact) { a.Cases = a.Cases[1:] }, "no ref_js_loop to divide by"},
		{"NaN ref sample", func(a *Artifact) { a.Cases[1].Processes[0].RefSamplesNs[1] = math.NaN() },
			`field "cases[1].processes[0].ref_samples_ns[1]" is NaN`},
		{"NaN ratio", func(a *Artifact) { *a.Cases[1].RatioToRef = math.NaN() }, `field "cases[1].ratio_to_ref" is NaN, want a finite number`},
		{"infinite median", func(a *Artifact) { a.Cases[1].MedianNs = math.Inf(1) }, `field "cases[1].median_ns" is +Inf`},
		{"NaN timer overhead", func(a *Artifact) { a.TimerOverheadNs = math.NaN() }, `field "timer_overhead_ns" is NaN`},
		{"negative timer overhead", func(a *Artifact) { a.TimerOverheadNs = -1e18 }, `field "timer_overhead_ns" is -1e+18, want a non-negative time`},
		{"NaN temperature", func(a *Artifact) { a.Device.Thermal = []Thermal{{Zone: "cpu", Celsius: math.NaN()}} },
			`field "device.thermal[0].celsius" is NaN`},
		{"infinite battery", func(a *Artifact) { v := math.Inf(-1); a.Device.Android = &Android{BatteryCelsius: &v} },
			`field "device.android.battery_celsius" is -Inf`},
		{"interval level over 1", func(a *Artifact) { a.Cases[1].PILevel = 2 }, `cases[1] (callback): field "pi_level" is 2`},
		{"zero crossings per ms", func(a *Artifact) { *a.Cases[1].CrossingsPerMs = 0 }, `field "crossings_per_ms" is 0`},
		{"negative iterations", func(a *Artifact) { a.Cases[1].Iterations = -1 }, `field "iterations" is -1`},
	}
	checkValidate(t, two, tests)
}

// validateCase is a change to a valid artifact and the error Validate must then give ("" for none).
type validateCase struct {
	name   string
	change func(a *Artifact)
	want   string
}

// checkValidate applies each change to a fresh artifact and checks what Validate says.
func checkValidate(t *testing.T, fresh func() *Artifact, tests []validateCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := fresh()
			tt.change(a)
			err := a.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("want no error, got %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// Write refuses an artifact it could not read back, naming the file and the field, and leaves no file behind.
func TestWriteRefusesInvalidArtifacts(t *testing.T) {
	a := two()
	a.TimerOverheadNs = math.NaN()
	path := filepath.Join(t.TempDir(), "a.json")
	err := Write(path, a)
	if err == nil || !strings.HasPrefix(err.Error(), path+": not written: ") || !strings.Contains(err.Error(), "timer_overhead_ns") {
		t.Fatalf("err %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
		t.Errorf("%d files left behind", len(entries))
	}
}

// The same checks on load, from the file's text, naming the file.
func TestReadRefusesBadNumbers(t *testing.T) {
	data, err := os.ReadFile(writeTemp(t, two()))
	if err != nil {
		t.Fatal(err)
	}
	valid := string(data)
	for _, tt := range []struct{ name, old, new, want string }{
		{"ref instructions 0", `"instructions_per_op": 450`, `"instructions_per_op": 0`, `(ref_js_loop): field "instructions_per_op" is 0`},
		{"stored ratio believed by nobody", `"ratio_to_ref": 4.3,
      "processes"`, `"ratio_to_ref": 1.5,
      "processes"`, `(callback): field "ratio_to_ref" is 1.5`},
		{"number beyond float64", `"median_ns": 44`, `"median_ns": 1e309`, `number 1e309`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(valid, tt.old) {
				t.Fatalf("the valid artifact has no %s:\n%s", tt.old, valid)
			}
			path := filepath.Join(t.TempDir(), "bad.json")
			os.WriteFile(path, []byte(strings.Replace(valid, tt.old, tt.new, 1)), 0o644)
			_, err := Read(path)
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %s: ...%s", err, path, tt.want)
			}
		})
	}
}

// A schema 1 artifact is checked as strictly: its stored ratio against the ratio its medians give, its reference
// instruction count positive.
func TestReadRefusesBadSchema1Numbers(t *testing.T) {
	v1 := `{"schema": 1, "tool": "bench-bridge", "target": "linux", "program": "floor", "complete": true,
	  "device": {}, "settings": {"samples": 3, "min_time_ns": 1, "warmup_ns": 1}, "timer_overhead_ns": 20,
	  "cases": [
	    {"name": "ref_js_loop", "iterations": 5, "samples_ns": [10, 11, 12], "median_ns": 11, "ci_low_ns": 10, "ci_high_ns": 12, "ci_level": 0.75, "ratio_to_ref": 1, "instructions_per_op": 450},
	    {"name": "callback", "crossing": true, "iterations": 5, "samples_ns": [30, 33, 36], "median_ns": 33, "ci_low_ns": 30, "ci_high_ns": 36, "ci_level": 0.75, "ratio_to_ref": 3}
	  ], "failures": [], "warnings": []}`
	if _, err := Parse([]byte(v1)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ old, new, want string }{
		{`"ratio_to_ref": 3`, `"ratio_to_ref": 0.5`, `cases[1] (callback): field "ratio_to_ref" is 0.5, but the least processes[].median_ns over the least processes[].ref_median_ns is 3`},
		{`"instructions_per_op": 450`, `"instructions_per_op": 0`, `cases[0] (ref_js_loop): field "instructions_per_op" is 0`},
		{`"median_ns": 33`, `"median_ns": 35`, `cases[1] (callback): processes[0]: field "median_ns" is 35, but the median of its samples_ns is 33`},
	} {
		_, err := Parse([]byte(strings.Replace(v1, tt.old, tt.new, 1)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.new, err, tt.want)
		}
	}
}

// A schema 2 artifact's ratio was the median of its processes' ratios: checked by that rule, then recomputed by
// this schema's, so that old and new artifacts compare by one rule.
func TestReadConvertsSchema2Ratios(t *testing.T) {
	a := two()
	c := &a.Cases[1]
	// A second process that ran while the machine was slower: the case 1.8x, its ref 1.4x.
	slow := CaseProcess{Process: 1, Iterations: 100, SamplesNs: []float64{79.2}, MedianNs: 79.2,
		RefSamplesNs: []float64{15.4}, RefMedianNs: 15.4}
	pr := 79.2 / 15.4
	slow.RatioToRef = &pr
	c.Processes = append(c.Processes, slow)
	a.Processes = append(a.Processes, a.Processes[0])
	a.Processes[1].Seq = 1
	c.SamplesNs = append(c.SamplesNs, 79.2)
	c.MedianNs = stats.Median(c.ProcessMedians())
	c.PILowNs, c.PIHighNs = c.MedianNs, c.MedianNs
	median := stats.Median(c.ProcessRatios())
	c.RatioToRef = &median
	data := asSchema(t, a, SchemaV2)
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	g := got.Case("callback")
	if g.RatioToRef == nil || *g.RatioToRef != 4.3 || got.Schema != Schema {
		t.Errorf("converted: schema %d, ratio %v; want %d and 43/10", got.Schema, g.RatioToRef, Schema)
	}
	// The stored interval (none: low = high = median) is recomputed over the two processes by this version's rule.
	if want := stats.PredictionInterval(c.ProcessMedians(), c.PILevel); g.PILowNs != want.Low || g.PIHighNs != want.High || !(want.Low < want.High) {
		t.Errorf("interval %v..%v, want %v..%v", g.PILowNs, g.PIHighNs, want.Low, want.High)
	}
	if !strings.Contains(string(data), fmt.Sprintf(`"ratio_to_ref":%v,`, median)) {
		t.Fatalf("test data: no stored median ratio %v in %s", median, data)
	}
	bad := strings.Replace(string(data), fmt.Sprintf(`"ratio_to_ref":%v,`, median), `"ratio_to_ref":4,`, 1)
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), `field "ratio_to_ref" is 4, but the median of processes[].ratio_to_ref is`) {
		t.Errorf("schema 2 with a ratio that is not the median: %v", err)
	}

	// Schema 3's ratio was the least process median over the least ref median: 44/11.
	v3 := strings.Replace(strings.Replace(string(data), fmt.Sprintf(`"ratio_to_ref":%v,`, median), `"ratio_to_ref":4,`, 1), `"schema":2`, `"schema":3`, 1)
	if got, err := Parse([]byte(v3)); err != nil || *got.Case("callback").RatioToRef != 4.3 {
		t.Errorf("schema 3: %v, %+v", err, got)
	}
	v3bad := strings.Replace(v3, `"ratio_to_ref":4,`, `"ratio_to_ref":4.3,`, 1)
	if _, err := Parse([]byte(v3bad)); err == nil || !strings.Contains(err.Error(), `field "ratio_to_ref" is 4.3, but the least processes[].median_ns over the least processes[].ref_median_ns is 4 (schema 3)`) {
		t.Errorf("schema 3 with a ratio by another rule: %v", err)
	}
}
