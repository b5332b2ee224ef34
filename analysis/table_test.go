package analysis

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/fakeart"
)

// tableOf builds the table of the artifacts in files, with the default thresholds.
func tableOf(t *testing.T, files ...string) *Table {
	t.Helper()
	var loaded []Loaded
	for _, f := range files {
		a, err := artifact.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		loaded = append(loaded, Loaded{f, a})
	}
	return Build(loaded, Options{}, nil)
}

// warningsOf are the texts of the table's warnings and notes of kind.
func warningsOf(table *Table, kind Kind) []string {
	var out []string
	for _, w := range append(slices.Clone(table.Warnings), table.Notes...) {
		if w.Kind == kind {
			out = append(out, w.Text)
		}
	}
	return out
}

// Artifacts of another device compare only by ×ref: the ratio of their ratios to ref_js_loop, not judged, and one
// warning line that names the difference.
func TestCrossDeviceComparesRatiosOnly(t *testing.T) {
	table := tableOf(t, "../reports/testdata/json.json", "../reports/testdata/arm-emulated.json")
	if got := table.Columns[1].Method; got != Unjudgeable {
		t.Errorf("column compared by %q, want %q", got, Unjudgeable)
	}
	origin := warningsOf(table, Origin)
	if len(origin) != 1 || !strings.Contains(origin[0], "different CPUs (Test CPU, ARMv7 Processor rev 10 (v7l))") {
		t.Errorf("origin warnings %q, want one naming the CPUs", origin)
	}
	for _, r := range table.Rows {
		c := r.Cells[1]
		if cmp := c.Comparison; cmp != nil && cmp.Verdict != Unjudged && cmp.Verdict != Missing {
			t.Errorf("%s: judged across devices: %+v", r.Case, *cmp)
		}
		if c.VsFirst != nil && c.Comparison != nil && c.Comparison.Baseline > 0 && *c.VsFirst != 1+c.Comparison.Change {
			t.Errorf("%s: vs first %v, want the comparison's %v", r.Case, *c.VsFirst, 1+c.Comparison.Change)
		}
	}
	if !table.Columns[1].Emulated || !strings.HasSuffix(table.Columns[1].Label, " (emulated)") {
		t.Errorf("emulated column not marked: %+v", table.Columns[1])
	}
}

// Two artifacts of one session (compare's) are paired, process by process, by the rule compare and gate use too: a
// change of 3% in every pair is significant, but under half the 10% minimum, and the table says so in words; 50% is a
// regression.
func TestOneSessionIsPaired(t *testing.T) {
	a := fakeart.Artifact(1, 0.02, fakeart.Base)
	b := fakeart.Artifact(1, 0.02, fakeart.Scaled(fakeart.Base, map[string]float64{"callback": 1.03, "script_to_host_object": 1.5}))
	a.Session.ID, b.Session.ID = "one", "one"
	table := Build([]Loaded{{"a.json", a}, {"b.json", b}}, Options{}, nil)
	if got := table.Columns[1].Method; got != Paired {
		t.Errorf("column compared by %q, want %q", got, Paired)
	}
	if len(table.Warnings) != 0 {
		t.Errorf("warnings %v", table.Warnings)
	}
	want := map[string]Verdict{"callback": Same, "script_to_host_object": Regressed}
	for _, r := range table.Rows {
		c := r.Cells[1]
		if v, ok := want[r.Case]; ok && (c.Comparison == nil || c.Comparison.Verdict != v) {
			t.Errorf("%s: %+v, want %s", r.Case, c.Comparison, v)
		}
	}
	under := warningsOf(table, UnderMinimum)
	if len(under) != 1 || under[0] != "callback: +3.0%, under half the 10% minimum (against json linux (a.json)): no change that counts" {
		t.Errorf("notes of changes under the minimum: %q", under)
	}
}

// An interval below the table's level is shown as "-", never as ±0%, and one warning covers every such case.
func TestNoIntervalIsADash(t *testing.T) {
	one := func(name string) artifact.Case {
		r := 1.0
		return artifact.Case{Name: name, SamplesNs: []float64{20}, MedianNs: 20, PILowNs: 20, PIHighNs: 20, PILevel: 0, RatioToRef: &r}
	}
	a := &artifact.Artifact{Target: "linux", Kind: artifact.ProgramFloor, Complete: true,
		Cases: []artifact.Case{one("ref_js_loop"), one("callback"), one("script_to_host_scalar")}}
	table := Build([]Loaded{{"a.json", a}}, Options{}, nil)
	for _, r := range table.Rows {
		if r.Cells[0].HasInterval() {
			t.Errorf("%s: an interval of level %v", r.Case, r.Cells[0].PILevel)
		}
	}
	if len(table.Warnings) != 1 || table.Warnings[0].Kind != NoInterval || !strings.Contains(table.Warnings[0].Text, "no 95% interval, shown as -, for 3 cases of floor linux (0 processes, 1 sample): too few") {
		t.Errorf("warnings %v, want one for all three cases", table.Warnings)
	}
	if len(table.Notes) != 0 {
		t.Errorf("notes beside the one warning: %v", table.Notes)
	}
}

// A committed artifact written when the runner still recorded the "unstable" line shows it once, as the analysis
// judges it, and not again among its notes.
func TestUnstableOnceForAnArtifactThatRecordedIt(t *testing.T) {
	raw, err := os.ReadFile("../docs/reports/bench/linux.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"unstable: `) {
		t.Fatal("docs/reports/bench/linux.json no longer records the unstable line: pick an artifact that does")
	}
	a, err := artifact.Read("../docs/reports/bench/linux.json")
	if err != nil {
		t.Fatal(err)
	}
	table := Build([]Loaded{{"linux.json", a}}, Options{}, nil)
	n := 0
	for _, w := range append(slices.Clone(table.Warnings), table.Notes...) {
		n += strings.Count(w.Text, "unstable: ")
	}
	if n != 1 || len(warningsOf(table, Unstable)) != 1 {
		t.Errorf("the unstable line %d times, want once, as the analysis's own: %v %v", n, table.Warnings, table.Notes)
	}
}

// Two runs of one build on one device, made in different sessions: placement and the machine's state move raw times
// between processes, so they compare by ×ref, with the U test (the device is the same) and no warning: that is what
// ×ref is for.
func TestSeparateRunsCompareRatios(t *testing.T) {
	a, err := artifact.Read("../reports/testdata/json.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := artifact.Read("../reports/testdata/json.json")
	b.StartedAt = b.StartedAt.Add(24 * time.Hour)
	b.Session.ID = "another"
	table := Build([]Loaded{{"a.json", a}, {"b.json", b}}, Options{}, nil)
	if got := table.Columns[1].Method; got != Unpaired {
		t.Errorf("compared by %q, want %q", got, Unpaired)
	}
	if len(table.Warnings) != 0 {
		t.Errorf("warnings %v", table.Warnings)
	}
	for _, r := range table.Rows {
		if c := r.Cells[1]; !c.Missing && (c.Comparison == nil || c.Comparison.P == nil) && r.Case != cases.RefCase {
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
		a, err := artifact.Read("../reports/testdata/json.json")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := artifact.Read("../reports/testdata/json.json")
		b.StartedAt, b.Session.ID = b.StartedAt.Add(time.Hour), "another"
		if tt.engine != "" {
			b.Engine = artifact.Engine{Name: tt.engine, Version: "1"}
		}
		for i := range b.Cases { // the whole machine slower: every sample, the ref's too
			for j := range b.Cases[i].SamplesNs {
				b.Cases[i].SamplesNs[j] *= tt.by
			}
		}
		table := Build([]Loaded{{"a.json", a}, {"b.json", b}}, Options{}, nil)
		got := warningsOf(table, StateShift)
		least := slices.Min(a.Case(cases.RefCase).SamplesNs)
		want := fmt.Sprintf("ref_js_loop's least sample was %s in a.json and %s in b.json (x1.40): b.json never ran at "+
			"the speed of a.json", artifact.FormatNs(least), artifact.FormatNs(least*tt.by))
		switch {
		case tt.want && (len(got) != 1 || !strings.HasPrefix(got[0], want)):
			t.Errorf("%.1fx slower: warnings %v, want one that starts %q", tt.by, table.Warnings, want)
		case !tt.want && len(got) > 0:
			t.Errorf("%.1fx slower, engine %q: warned %q", tt.by, tt.engine, got)
		}
	}
}

// TestShowNamesTheEnginesAndTheirKind: a table of two engines says which interprets and which compiles; one of a
// single engine says nothing of it.
func TestShowNamesTheEnginesAndTheirKind(t *testing.T) {
	a, err := artifact.Read("../reports/testdata/json.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := artifact.Read("../reports/testdata/json.json")
	if got := warningsOf(Build([]Loaded{{"a.json", a}, {"b.json", b}}, Options{}, nil), Engines); len(got) > 0 {
		t.Errorf("one engine, notes %q", got)
	}
	b.Engine = artifact.Engine{Name: "jsc", Version: "2.50.6"}
	got := warningsOf(Build([]Loaded{{"a.json", a}, {"b.json", b}}, Options{}, nil), Engines)
	want := "engines: quickjs 2025-04-26 (interpreter), jsc 2.50.6 (JIT): each ×ref is over the engine's own ref_js_loop"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("notes %q, want one that starts %q", got, want)
	}
}

// TestShowNamesMarkedProcesses: show's notes name every marked process of an artifact, with its core and why.
func TestShowNamesMarkedProcesses(t *testing.T) {
	js, err := artifact.Read("../reports/testdata/json.json")
	if err != nil {
		t.Fatal(err)
	}
	core := 4
	p := &js.Processes[len(js.Processes)-1]
	p.CPU, p.Marks = &core, []string{"cpu 4's clock went from 2800 MHz at its start to 2200 MHz at its end"}
	notes := lines(Build([]Loaded{{"json.json", js}}, Options{}, nil).Notes)
	if !strings.Contains(notes, "json linux: 1 of 1 processes did not run in the state the others ran in, and their "+
		"numbers are in the artifact's statistics (process 0 (cpu 4): cpu 4's clock went from 2800 MHz at its start "+
		"to 2200 MHz at its end); let the device cool down or quieten it, or measure again with --cooldown") {
		t.Errorf("notes:\n%s", notes)
	}
	p.Marks = nil
	if notes := lines(Build([]Loaded{{"json.json", js}}, Options{}, nil).Notes); strings.Contains(notes, "processes did not run") {
		t.Errorf("an artifact without marks gets a note:\n%s", notes)
	}
}

// lines are the warnings as the views print them, one a line.
func lines(ws []Warning) string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return strings.Join(out, "\n")
}

func TestBuildComparesWithTheFirstArtifact(t *testing.T) {
	table := tableOf(t, "../reports/testdata/floor.json", "../reports/testdata/json.json")
	var scalar, ref *Row
	for i := range table.Rows {
		switch table.Rows[i].Case {
		case "script_to_host_scalar":
			scalar = &table.Rows[i]
		case "ref_js_loop":
			ref = &table.Rows[i]
		}
	}
	c := scalar.Cells[1]
	// Fully separated ratios of 10 and 10 processes: the U test's two-sided p is 2/C(20,10), far below 0.05.
	if cmp := c.Comparison; cmp == nil || cmp.Verdict != Regressed || *cmp.P > 0.001 || *c.VsFirst < 100 || *c.VsFirst != 1+cmp.Change {
		t.Errorf("scalar json vs floor: %+v, want a significant ~158x", c)
	}
	if r := ref.Cells[1]; r.Comparison != nil || *r.VsFirst != 1 {
		t.Errorf("ref_js_loop compared by ×ref: %+v, want 1x with no test (its ratio is 1 by definition)", r)
	}
	if *table.Frame[0] < 38000 || *table.Frame[1] > 250 {
		t.Errorf("frame crossings %v, %v", *table.Frame[0], *table.Frame[1])
	}
}

// show --history notes each device's noise in the model, so that every format has it.
func TestNoiseIsNoted(t *testing.T) {
	a := fakeart.Artifact(1, 0.02, fakeart.Base)
	noise := func(*artifact.Artifact) *Noise {
		return &Noise{Device: "dev", Visible: map[string]float64{"callback": 0.2, "script_to_host_scalar": 0.031}}
	}
	got := lines(Build([]Loaded{{"a.json", a}}, Options{}, noise).Notes)
	if want := "json linux: history of dev: its nightly sees changes of 3.1% (script_to_host_scalar) to 20.0% (callback) and more"; got != want {
		t.Errorf("notes %q, want %q", got, want)
	}
}
