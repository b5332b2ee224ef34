package reports

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
)

// Artifacts of another device compare only by ×ref: the ratio of their ratios to ref_js_loop, no p-value, and one
// warning line that names the difference.
func TestCrossDeviceComparesRatiosOnly(t *testing.T) {
	table := tableOf(t, "testdata/json.json", "testdata/arm-emulated.json")
	if got := table.Columns[1].VsFirst; got != ByRatio {
		t.Errorf("column compared by %q, want %q", got, ByRatio)
	}
	var origin []string
	for _, w := range table.Warnings {
		if strings.Contains(w, "come from different") {
			origin = append(origin, w)
		}
	}
	if len(origin) != 1 || !strings.Contains(origin[0], "different CPUs (Test CPU, ARMv7 Processor rev 10 (v7l))") {
		t.Errorf("origin warnings %q, want one naming the CPUs", origin)
	}
	for _, r := range table.Rows {
		c := r.Cells[1]
		if c.PValue != nil || c.Significant || c.TestError != "" {
			t.Errorf("%s: a test across devices: %+v", r.Case, c)
		}
		first := r.Cells[0]
		if c.VsFirst != nil && *c.VsFirst != *c.RatioToRef / *first.RatioToRef {
			t.Errorf("%s: vs first %v, want the ratio of ratios %v", r.Case, *c.VsFirst, *c.RatioToRef / *first.RatioToRef)
		}
	}
	if !table.Columns[1].Emulated || !strings.HasSuffix(table.Columns[1].Label, " (emulated)") {
		t.Errorf("emulated column not marked: %+v", table.Columns[1])
	}
}

// The same program measured twice on one device compares by time, with the U test, and no warning.
func TestSameOriginComparesTimes(t *testing.T) {
	table := tableOf(t, "testdata/json.json", "testdata/json.json")
	if got := table.Columns[1].VsFirst; got != ByTime {
		t.Errorf("column compared by %q, want %q", got, ByTime)
	}
	if len(table.Warnings) != 0 {
		t.Errorf("warnings %q", table.Warnings)
	}
	for _, r := range table.Rows {
		if c := r.Cells[1]; !c.Missing && (c.PValue == nil || *c.VsFirst != 1) {
			t.Errorf("%s: %+v, want p and a ratio of 1", r.Case, c)
		}
	}
}

// An interval below the table's level is shown as "-", never as ±0%, and one warning covers every such case.
func TestNoIntervalIsADash(t *testing.T) {
	one := func(name string) artifact.Case {
		r := 1.0
		return artifact.Case{Name: name, SamplesNs: []float64{20}, MedianNs: 20, PILowNs: 20, PIHighNs: 20, PILevel: 0, RatioToRef: &r}
	}
	a := &artifact.Artifact{Target: "linux", Program: artifact.ProgramFloor, Complete: true,
		Cases:    []artifact.Case{one("ref_js_loop"), one("callback"), one("script_to_host_scalar")},
		Warnings: []string{"ref_js_loop: need >= 6 samples for confidence interval at level 0.95", "callback: need >= 6 samples for confidence interval at level 0.95"}}
	table := Build([]*artifact.Artifact{a}, []string{"a.json"})
	for _, r := range table.Rows {
		if got := table.cells(r)[2]; got != "-" {
			t.Errorf("%s: interval %q, want -", r.Case, got)
		}
	}
	if len(table.Warnings) != 1 || !strings.Contains(table.Warnings[0], "no 95% interval, shown as -, for 3 cases of floor linux (0 processes, 1 sample): too few") {
		t.Errorf("warnings %q, want one for all three cases", table.Warnings)
	}
	if len(table.Notes) != 0 {
		t.Errorf("the artifact's per-case interval warnings are still shown: %q", table.Notes)
	}
}

// Two runs of one build on one device, made in different sessions: placement and the machine's state move raw times
// between processes, so they compare by ×ref, with the U test (the device is the same) and a warning naming the runs.
func TestSeparateRunsCompareRatios(t *testing.T) {
	a, err := artifact.Read("testdata/json.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := artifact.Read("testdata/json.json")
	b.StartedAt = b.StartedAt.Add(24 * time.Hour)
	table := Build([]*artifact.Artifact{a, b}, []string{"a.json", "b.json"})
	if got := table.Columns[1].VsFirst; got != ByRatio {
		t.Errorf("compared by %q, want %q", got, ByRatio)
	}
	want := "a.json and b.json come from different sessions (run of 2026-11-30 12:00:00, run of 2026-12-01 12:00:00): comparing ×ref"
	if len(table.Warnings) != 1 || table.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", table.Warnings, want)
	}
	for _, r := range table.Rows {
		if c := r.Cells[1]; !c.Missing && c.PValue == nil && r.Case != cases.RefCase {
			t.Errorf("%s: no U test on one device: %+v", r.Case, c)
		}
	}
}

// Two runs of one device where one never reached the other's speed get one more warning line, naming the slow one;
// a run a little slower gets none, and so does a run of another engine, whose ref_js_loop is another loop.
func TestShowWarnsOfAnotherState(t *testing.T) {
	for _, tt := range []struct {
		by     float64
		engine string
		want   bool
	}{{1.4, "", true}, {1.1, "", false}, {1.4, "jsc", false}} {
		a, err := artifact.Read("testdata/json.json")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := artifact.Read("testdata/json.json")
		b.StartedAt = b.StartedAt.Add(time.Hour)
		if tt.engine != "" {
			b.Engine = artifact.Engine{Name: tt.engine, Version: "1"}
		}
		for i := range b.Cases { // the whole machine slower: every sample, the ref's too
			for j := range b.Cases[i].SamplesNs {
				b.Cases[i].SamplesNs[j] *= tt.by
			}
		}
		table := Build([]*artifact.Artifact{a, b}, []string{"a.json", "b.json"})
		var got []string
		for _, w := range table.Warnings {
			if strings.Contains(w, "never ran at the speed") {
				got = append(got, w)
			}
		}
		least := slices.Min(a.Case(cases.RefCase).SamplesNs)
		want := fmt.Sprintf("ref_js_loop's least sample was %s in a.json and %s in b.json (x1.40): b.json never ran at "+
			"the speed of a.json", artifact.FormatNs(least), artifact.FormatNs(least*tt.by))
		switch {
		case tt.want && (len(got) != 1 || !strings.HasPrefix(got[0], want)):
			t.Errorf("%.1fx slower: warnings %q, want one that starts %q", tt.by, table.Warnings, want)
		case !tt.want && len(got) > 0:
			t.Errorf("%.1fx slower, engine %q: warned %q", tt.by, tt.engine, got)
		}
	}
}

// TestShowNamesTheEnginesAndTheirKind: a table of two engines says which interprets and which compiles; one of a
// single engine says nothing of it.
func TestShowNamesTheEnginesAndTheirKind(t *testing.T) {
	a, err := artifact.Read("testdata/json.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := artifact.Read("testdata/json.json")
	if table := Build([]*artifact.Artifact{a, b}, []string{"a.json", "b.json"}); slices.ContainsFunc(table.Notes, func(n string) bool { return strings.HasPrefix(n, "engines:") }) {
		t.Errorf("one engine, notes %q", table.Notes)
	}
	b.Engine = artifact.Engine{Name: "jsc", Version: "2.50.6"}
	table := Build([]*artifact.Artifact{a, b}, []string{"a.json", "b.json"})
	want := "engines: quickjs 2025-04-26 (interpreter), jsc 2.50.6 (JIT): each ×ref is over the engine's own ref_js_loop"
	if !slices.ContainsFunc(table.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("notes %q, want one that starts %q", table.Notes, want)
	}
}
