package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// v1Seed is a schema 1 artifact; Parse turns it into the current schema, whose encoding is the current schema's
// seed, and with its schema number and interval names changed, the seed of every schema between.
const v1Seed = `{"schema": 1, "tool": "bench-bridge", "target": "linux", "program": "floor", "complete": true,
  "device": {}, "settings": {"samples": 3, "min_time_ns": 1, "warmup_ns": 1}, "timer_overhead_ns": 20,
  "cases": [
    {"name": "ref_js_loop", "iterations": 5, "samples_ns": [10, 11, 12], "median_ns": 11, "ci_low_ns": 10, "ci_high_ns": 12, "ci_level": 0.75, "ratio_to_ref": 1},
    {"name": "callback", "crossing": true, "iterations": 5, "samples_ns": [30, 33, 36], "median_ns": 33, "ci_low_ns": 30, "ci_high_ns": 36, "ci_level": 0.75, "ratio_to_ref": 3, "instructions_per_op": 120}
  ], "failures": [{"name": "x", "reason": "\u001b]0;owned-title\u0007\u001b[2J | a\nb"}], "warnings": []}`

// artifactSeeds are a good artifact of every schema, then the broken values the fuzzer should start from, each as an
// edit of a good artifact.
func artifactSeeds(t testing.TB) [][]byte {
	a, err := Parse([]byte(v1Seed))
	if err != nil {
		t.Fatal(err)
	}
	seeds := [][]byte{[]byte(v1Seed), asSchema(t, a, SchemaV2), asSchema(t, a, SchemaV3), asSchema(t, a, SchemaV4)}
	cur, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	seeds = append(seeds, cur)
	edit := func(base []byte, old, new string) {
		seeds = append(seeds, bytes.Replace(base, []byte(old), []byte(new), 1))
	}
	for _, base := range slices.Clone(seeds) {
		edit(base, `"instructions_per_op":120`, `"instructions_per_op":0`)
		edit(base, `"instructions_per_op": 120`, `"instructions_per_op": -4`)
		edit(base, `"ratio_to_ref": 3`, `"ratio_to_ref": -3`)
		edit(base, `"ratio_to_ref":3`, `"ratio_to_ref":7`)
		edit(base, `"median_ns": 33`, `"median_ns": 1e300`)
		edit(base, `"median_ns":33`, `"median_ns":1e-300`)
		edit(base, `"median_ns":33`, `"median_ns":1e309`)
		edit(base, `"timer_overhead_ns": 20`, `"timer_overhead_ns": -1e308`)
	}
	edit(cur, `"cases":[`, `"cases":null,"x":[`)
	edit([]byte(v1Seed), `"cases": [`, `"cases": null, "x": [`)
	edit(cur, fmt.Sprintf(`"schema":%d`, Schema), fmt.Sprintf(`"schema":%d`, Schema+1))
	return seeds
}

// FuzzParse: any bytes load as an artifact or give an error that says where or which field; a loaded artifact has
// only finite numbers, its ratios positive, and it writes and reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range artifactSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(""))
	f.Add([]byte(`{"schema":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if err := a.checkNumbers(); err != nil {
			t.Fatalf("a loaded artifact with %v", err)
		}
		if a.TimerOverheadNs < 0 || math.IsNaN(a.TimerOverheadNs) {
			t.Fatalf("timer_overhead_ns %v", a.TimerOverheadNs)
		}
		for _, c := range a.Cases {
			if c.RatioToRef != nil && !(*c.RatioToRef > 0) {
				t.Fatalf("case %s: ratio_to_ref %v", c.Name, *c.RatioToRef)
			}
			if c.InstructionsPerOp != nil && !(*c.InstructionsPerOp > 0) {
				t.Fatalf("case %s: instructions_per_op %v", c.Name, *c.InstructionsPerOp)
			}
		}
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("a loaded artifact does not encode: %v", err)
		}
		b, err := Parse(out)
		if err != nil {
			t.Fatalf("a loaded artifact does not read back: %v", err)
		}
		again, _ := json.Marshal(b)
		if !bytes.Equal(out, again) {
			t.Fatalf("the artifact changed on its way back:\n%s\n%s", out, again)
		}
	})
}

// TestParseMillionSamples: a case of a million samples (too large a seed to fuzz fast) loads, or is refused for its
// median, which a million and one samples of 10 ns do not have at 11: never a panic or a silent load.
func TestParseMillionSamples(t *testing.T) {
	million := bytes.Repeat([]byte("10,"), 1_000_000)
	data := bytes.Replace([]byte(v1Seed), []byte(`"samples_ns": [10, 11, 12]`), []byte(`"samples_ns": [`+string(million)+`10]`), 1)
	if _, err := Parse(data); err == nil || !strings.Contains(err.Error(), "median") {
		t.Fatalf("err = %v, want the median that does not match its samples", err)
	}
	fixed := bytes.Replace(data, []byte(`"median_ns": 11, "ci_low_ns": 10, "ci_high_ns": 12`), []byte(`"median_ns": 10, "ci_low_ns": 10, "ci_high_ns": 10`), 1)
	fixed = bytes.Replace(fixed, []byte(`"ratio_to_ref": 3,`), []byte(`"ratio_to_ref": 3.3,`), 1)
	if a, err := Parse(fixed); err != nil || len(a.Cases[0].SamplesNs) != 1_000_001 {
		t.Fatalf("a million samples: %v", err)
	}
}

// TestFuzzSeedsCoverEverySchema: the first seeds are good artifacts of schemas 1 to Schema, so that the fuzzer
// starts from every version Parse reads.
func TestFuzzSeedsCoverEverySchema(t *testing.T) {
	for i, s := range artifactSeeds(t)[:Schema] {
		if a, err := Parse(s); err != nil || a.Schema != Schema {
			t.Errorf("seed of schema %d: %v", i+1, err)
		}
	}
}
