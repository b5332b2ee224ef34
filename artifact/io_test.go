package artifact

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/stats"
)

func sample() *Artifact {
	r := 1.0
	return &Artifact{
		Schema: Schema, Tool: "bench-bridge test", Target: "linux", Kind: ProgramBridge, Codec: "json", Complete: true,
		StartedAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Session:   Session{ID: "s1", Programs: []string{"json linux"}, Order: []int{0}, Seed: 1},
		Processes: []Process{{CaseOrder: []string{"ref_js_loop"}, Protocol: 2}},
		Cases: []Case{{Name: "ref_js_loop", Iterations: 100, SamplesNs: []float64{10, 11, 12}, MedianNs: 11,
			PILowNs: 10, PIHighNs: 12, PILevel: 0.75, RatioToRef: &r,
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
		{"interval", strings.Replace(string(valid), `"pi_high_ns": 12`, `"pi_high_ns": 10.5`, 1), "does not contain median_ns"},
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

// Earlier writers recorded the "unstable" and "one process" lines and the per-case "too few samples" as warnings: a reader drops those
// judgements (the analysis makes them from the intervals) and keeps what else the run recorded.
func TestReadDropsJudgedWarnings(t *testing.T) {
	a := sample()
	a.Warnings = []string{
		"unstable: another run may measure ns/op more than ±10% away for 1 of 2 cases (callback ±30%): read ×ref",
		"callback: need >= 6 samples for confidence interval at level 0.95",
		"one process: no interval over processes, and ratios carry that process's placement; use --runs 2 or more",
		"cpufreq governor is schedutil: clocks not locked",
	}
	got, err := Read(writeTemp(t, a))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Warnings, []string{"cpufreq governor is schedutil: clocks not locked"}) {
		t.Errorf("warnings %q, want only the recorded one", got.Warnings)
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

// asSchema encodes a as an artifact of an older schema would have it: the schema number, and the intervals by the
// names schemas 1 to 4 gave them.
func asSchema(t testing.TB, a *Artifact, schema int) []byte {
	t.Helper()
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), fmt.Sprintf(`"schema":%d`, Schema), fmt.Sprintf(`"schema":%d`, schema), 1)
	for _, name := range []string{"low_ns", "high_ns", "level", "low", "high"} {
		s = strings.ReplaceAll(s, `"pi_`+name+`"`, `"ci_`+name+`"`)
	}
	s = strings.ReplaceAll(s, `"ratio_pi_`, `"ratio_ci_`)
	if strings.Contains(s, `"pi_`) || !strings.Contains(s, `"ci_level"`) {
		t.Fatalf("asSchema: pi_ names left in %s", s)
	}
	return []byte(s)
}

// The current schema writes its intervals as pi_* (prediction intervals), never as the ci_* of schemas 1 to 4.
func TestWritesPredictionIntervalNames(t *testing.T) {
	data, err := os.ReadFile(writeTemp(t, sample()))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{fmt.Sprintf(`"schema": %d`, Schema), `"pi_low_ns": 10`, `"pi_high_ns": 12`, `"pi_level": 0.75`} {
		if !strings.Contains(s, want) {
			t.Errorf("written artifact has no %s", want)
		}
	}
	if strings.Contains(s, `"ci_`) {
		t.Errorf("written artifact has a ci_ field:\n%s", s)
	}
}

// A schema 4 artifact's ci_* fields read as the current pi_* ones: a case of one process keeps its interval, and one
// of several has both intervals recomputed from its processes by this version's rules.
func TestReadsSchema4(t *testing.T) {
	a, err := Parse(asSchema(t, sample(), SchemaV4))
	if err != nil {
		t.Fatal(err)
	}
	ref := a.Case("ref_js_loop")
	if a.Schema != Schema || ref.PILowNs != 10 || ref.PIHighNs != 12 || ref.PILevel != 0.75 {
		t.Fatalf("converted: schema %d, interval %v..%v at %v; want %d, 10..12 at 0.75", a.Schema, ref.PILowNs, ref.PIHighNs, ref.PILevel, Schema)
	}

	a = two()
	c := &a.Cases[1]
	r2 := 66.0 / 13
	c.Processes = append(c.Processes, CaseProcess{Process: 1, Iterations: 100, SamplesNs: []float64{60, 66, 72}, MedianNs: 66,
		RefSamplesNs: []float64{12, 13, 14}, RefMedianNs: 13, RatioToRef: &r2})
	a.Processes = append(a.Processes, Process{Seq: 1, CaseOrder: []string{"callback"}, Protocol: 2})
	c.SamplesNs = append(c.SamplesNs, 60, 66, 72)
	c.MedianNs, c.PILowNs, c.PIHighNs = 55, 55, 55 // the median of 44 and 66, with a stale interval of none
	lo, hi := 4.3, 4.3
	c.RatioPILow, c.RatioPIHigh = &lo, &hi
	got, err := Parse(asSchema(t, a, SchemaV4))
	if err != nil {
		t.Fatal(err)
	}
	g := got.Case("callback")
	want := stats.PredictionInterval([]float64{44, 66}, 0.75)
	if g.PILowNs != want.Low || g.PIHighNs != want.High || !(want.Low < 55 && 55 < want.High) {
		t.Errorf("interval %v..%v, want it recomputed: %v..%v", g.PILowNs, g.PIHighNs, want.Low, want.High)
	}
	wantRatio := stats.LeastOverLeast(g.ProcessSamples(), 0.75)
	if g.RatioPILow == nil || *g.RatioPILow != wantRatio.Low || *g.RatioPIHigh != wantRatio.High || !(wantRatio.Low < 4.3) {
		t.Errorf("ratio interval %v..%v, want it recomputed: %v..%v", g.RatioPILow, g.RatioPIHigh, wantRatio.Low, wantRatio.High)
	}
}

// Every artifact committed to the repository (reports and test data, of schemas 1, 4 and 5, and 6 once committed)
// still loads, as the current schema, with the interval levels it stored (as ci_* before schema 5, pi_* since).
func TestReadsCommittedArtifacts(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../docs/reports/bench/*.json", "../docs/reports/bench/*/*.json", "../docs/reports/bench/*/*/*.json", "../reports/testdata/*.json"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d committed artifacts, want the reports' and the test data's", len(files))
	}
	schemas := map[int]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Schema int           `json:"schema"`
			Cases  []v4Intervals `json:"cases"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if raw.Schema >= SchemaV5 { // the intervals named pi_*
			var current struct {
				Cases []Case `json:"cases"`
			}
			if err := json.Unmarshal(data, &current); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for i, c := range current.Cases {
				raw.Cases[i] = v4Intervals{CILowNs: c.PILowNs, CIHighNs: c.PIHighNs, CILevel: c.PILevel}
			}
		}
		schemas[raw.Schema] = true
		a, err := Read(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if a.Engine.Name == "" {
			t.Errorf("%s: read without an engine (meta %v, quickjs %q)", f, a.Meta, a.Device.QuickJS)
		}
		if a.Schema != Schema || len(a.Cases) != len(raw.Cases) {
			t.Errorf("%s: schema %d, %d cases; want %d, %d", f, a.Schema, len(a.Cases), Schema, len(raw.Cases))
			continue
		}
		for i, c := range a.Cases {
			if c.PILevel != raw.Cases[i].CILevel || (len(c.Processes) == 1 && c.PILowNs != raw.Cases[i].CILowNs) {
				t.Errorf("%s: %s: interval %v..%v at %v, stored as ci_* %+v", f, c.Name, c.PILowNs, c.PIHighNs, c.PILevel, raw.Cases[i])
			}
		}
	}
	if !schemas[SchemaV1] || !schemas[SchemaV4] || !schemas[SchemaV5] {
		t.Errorf("committed artifacts of schemas %v; the test means to read schemas 1, 4 and 5", schemas)
	}
}

// TestOlderSchemasGetTheirEngine: an artifact of schema 5 is read with the engine its program named in a `meta
// engine` line, else with the QuickJS it was built with.
func TestOlderSchemasGetTheirEngine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "reports", "bench", "nightly", "linux.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if a.Engine != (Engine{Name: "quickjs", Version: "2025-04-26"}) {
		t.Errorf("a QuickJS bridge of schema 5: engine %+v", a.Engine)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m["schema"] != float64(SchemaV5) {
		t.Fatalf("the nightly artifact is of schema %v, the test wants 5", m["schema"])
	}
	m["meta"] = map[string]string{"engine": "duktape 2.7.0"}
	m["device"].(map[string]any)["quickjs"] = ""
	data, _ = json.Marshal(m)
	if a, err = Parse(data); err != nil {
		t.Fatal(err)
	}
	if a.Engine != (Engine{Name: "duktape", Version: "2.7.0"}) || a.Schema != Schema {
		t.Errorf("a Duktape program's artifact of schema 5: engine %+v, schema %d", a.Engine, a.Schema)
	}
}

// A case's interval takes the in-state rule only when the run decided a fastest state and at least two processes
// ran the case in it; otherwise its processes may have run in several states, and the wider rule holds.
func TestStateIntervalRule(t *testing.T) {
	c := &Case{Processes: []CaseProcess{{MedianNs: 10}, {MedianNs: 11}, {MedianNs: 12}, {MedianNs: 20, Slower: 1.6}}}
	medians := []float64{10, 11, 12}
	noState, inState := &Artifact{}, &Artifact{States: &States{RefNs: 10, BoundNs: 11}}
	if got, want := noState.StateInterval(c, 0.95), stats.PredictionInterval(medians, 0.95); got != want {
		t.Errorf("no state decided: %+v, want the mixed rule's %+v", got, want)
	}
	got, want := inState.StateInterval(c, 0.95), stats.PredictionIntervalInState(medians, 0.95)
	if got != want || !(got.High < stats.PredictionInterval(medians, 0.95).High) {
		t.Errorf("in the fastest state: %+v, want the in-state rule's %+v, narrower than the mixed rule's", got, want)
	}
	one := &Case{Processes: []CaseProcess{{MedianNs: 10}, {MedianNs: 20, Slower: 1.6}, {MedianNs: 21, Slower: 1.7}}}
	if got, want := inState.StateInterval(one, 0.95), stats.PredictionInterval([]float64{10, 20, 21}, 0.95); got != want {
		t.Errorf("one process in the state: %+v, want the mixed rule over every process, %+v", got, want)
	}
}
