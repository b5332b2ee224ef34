// Package reports shows artifacts: the side-by-side table that `show` prints, rendered as text, markdown or html,
// and the exporters (csv, json, benchstat), which take the artifacts themselves as hyperfine's export/ does. The
// table model holds what the views show, never raw samples.
package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/stats"
)

// FrameCase is the case whose crossings per ms the closing line quotes, as the report does.
const FrameCase = "script_to_host_scalar"

// Table is artifacts side by side: one row per case, one column group per artifact.
type Table struct {
	Columns []Column `json:"columns"`
	Rows    []Row    `json:"rows"`
	// Frame is what 1 ms of a 60 Hz frame buys in FrameCase crossings, per column (nil where not measured).
	Frame []*float64 `json:"frame_crossings_per_ms"`
	// Warnings say what limits the comparison: artifacts of different origins, intervals that could not be computed.
	// One line each, however many cases they concern.
	Warnings []string `json:"warnings"`
	Notes    []string `json:"notes"`
}

// Column is one artifact.
type Column struct {
	// Label names the artifact, with " (emulated)" when it ran under an emulator.
	Label    string `json:"label"`
	File     string `json:"file"`
	Complete bool   `json:"complete"`
	Emulated bool   `json:"emulated"`
	// EmulatedReason says why the artifact counts as emulated, when it does.
	EmulatedReason string `json:"emulated_reason,omitempty"`
	// VsFirst is how the column compares with the first (absent in the first): ByTime when both come from the same
	// device, engine and build, else ByRatio.
	VsFirst string `json:"vs_first_by,omitempty"`
}

// Row is one case across the artifacts.
type Row struct {
	Case     string `json:"case"`
	Crossing bool   `json:"crossing"`
	Cells    []Cell `json:"cells"`
}

// Cell is one case in one artifact. Missing is set when the artifact has no result for the case.
type Cell struct {
	Missing  bool    `json:"missing,omitempty"`
	Failed   string  `json:"failed,omitempty"`
	MedianNs float64 `json:"median_ns,omitempty"`
	// PILowNs and PIHighNs bound the median's prediction interval (the artifact's) at stats.Level; both 0 when the
	// artifact has no such interval.
	PILowNs        float64  `json:"pi_low_ns,omitempty"`
	PIHighNs       float64  `json:"pi_high_ns,omitempty"`
	PILevel        float64  `json:"pi_level,omitempty"`
	RatioToRef     *float64 `json:"ratio_to_ref,omitempty"`
	CrossingsPerMs *float64 `json:"crossings_per_ms,omitempty"`
	// Against the first column (absent in the first column itself), as the column's VsFirst says: the ratio of
	// medians, or of ratios to ref_js_loop. The p-value is absent where the devices differ.
	VsFirst     *float64 `json:"vs_first,omitempty"`
	PValue      *float64 `json:"p_value,omitempty"`
	Significant bool     `json:"significant,omitempty"`
	TestError   string   `json:"test_error,omitempty"`
	// InstructionsPerOp is the callgrind count, when the artifact has one.
	InstructionsPerOp *float64 `json:"instructions_per_op,omitempty"`
	// AllocsPerOp and BytesPerOp are what one op allocates, engine and host together, when the artifact has them.
	AllocsPerOp *float64 `json:"allocs_per_op,omitempty"`
	BytesPerOp  *float64 `json:"bytes_per_op,omitempty"`
}

// How a column compares with the first.
const (
	ByTime  = "ns/op"        // the same device, engine and build: the ratio of medians, the U test on the samples
	ByRatio = "ratio_to_ref" // anything else: the ratio of ratios to ref_js_loop; the U test only on the same device
)

// Build makes the table for artifacts read from files (files[i] is where arts[i] came from).
func Build(arts []*artifact.Artifact, files []string) *Table {
	t := &Table{Warnings: []string{}, Notes: []string{}}
	labels := Labels(arts, files)
	for i, a := range arts {
		col := Column{Label: labels[i], File: files[i], Complete: a.Complete, Emulated: a.Device.Emulated,
			EmulatedReason: a.Device.EmulatedReason}
		if i > 0 {
			col.VsFirst = ByTime
			if ds := artifact.Differences(arts[0], a); len(ds) > 0 {
				col.VsFirst = ByRatio
				if beyond := artifact.BeyondPrograms(ds); len(beyond) > 0 {
					t.Warnings = append(t.Warnings, originWarning(files[0], files[i], beyond))
				}
			}
			if w := stateWarning(arts[0], a, files[0], files[i]); w != "" {
				t.Warnings = append(t.Warnings, w)
			}
		}
		t.Columns = append(t.Columns, col)
	}
	for _, name := range caseOrder(arts) {
		row := Row{Case: name}
		if c, ok := cases.Lookup(name); ok {
			row.Crossing = c.Crossing
		}
		for i, a := range arts {
			cell := cellFor(a, name)
			if c := a.Case(name); c != nil {
				row.Crossing = row.Crossing || c.Crossing
				if first := arts[0].Case(name); i > 0 && first != nil {
					compare(&cell, arts[0], a, first, c, t.Columns[i].VsFirst)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	if n := engineNote(arts); n != "" {
		t.Notes = append(t.Notes, n)
	}
	for i, a := range arts {
		var frame *float64
		if c := a.Case(FrameCase); c != nil {
			frame = c.CrossingsPerMs
		}
		t.Frame = append(t.Frame, frame)
		t.Notes = append(t.Notes, notes(t.Columns[i].Label, a)...)
	}
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Label
	}
	if w := intervalWarning(names, arts); w != "" {
		t.Warnings = append(t.Warnings, w)
	}
	// Recomputed from the intervals shown, so that it says once what each artifact's own warning would repeat.
	if w := artifact.UnstableWarning(arts, names, stats.DefaultStability); w != "" {
		t.Warnings = append(t.Warnings, w)
	}
	return t
}

// Labels name the artifacts read from files as the table's columns do: each artifact's label (naming every floor's
// engine when the artifacts are of several), with its file where two share one, and " (emulated)" when it ran under
// an emulator.
func Labels(arts []*artifact.Artifact, files []string) []string {
	label := (*artifact.Artifact).Label
	if slices.ContainsFunc(arts, func(a *artifact.Artifact) bool { return a.Engine != arts[0].Engine }) {
		label = (*artifact.Artifact).LabelNamingEngine
	}
	count := map[string]int{}
	for _, a := range arts {
		count[label(a)]++
	}
	out := make([]string, len(arts))
	for i, a := range arts {
		out[i] = label(a)
		if count[out[i]] > 1 {
			out[i] += " (" + files[i] + ")"
		}
		if a.Device.Emulated {
			out[i] += " (emulated)"
		}
	}
	return out
}

// OnlyCases keeps in each artifact only the named cases, with their failures, and ref_js_loop, which every ratio
// needs: show --cases. A name that no artifact measured or failed is an error.
func OnlyCases(arts []*artifact.Artifact, names []string) error {
	present := map[string]bool{}
	for _, a := range arts {
		for _, c := range a.Cases {
			present[c.Name] = true
		}
		for _, f := range a.Failures {
			present[f.Name] = true
		}
	}
	for _, n := range names {
		if !present[n] {
			return fmt.Errorf("--cases: no artifact has %s", n)
		}
	}
	keep := func(name string) bool { return name == cases.RefCase || slices.Contains(names, name) }
	for _, a := range arts {
		a.Cases = slices.DeleteFunc(a.Cases, func(c artifact.Case) bool { return !keep(c.Name) })
		a.Failures = slices.DeleteFunc(a.Failures, func(f artifact.Failure) bool { return !keep(f.Name) })
	}
	return nil
}

// originWarning is the one line that says why a column compares with the first by ratio only.
func originWarning(first, file string, ds []artifact.Difference) string {
	how := "comparing ×ref"
	if slices.ContainsFunc(ds, func(d artifact.Difference) bool { return d.Kind == artifact.DiffDevice }) {
		how = "comparing ×ref only, no test of significance"
	}
	return fmt.Sprintf("%s and %s come from %s: %s", first, file, artifact.Describe(ds), how)
}

// stateWarning is one line when a and b, from one device, did not run at one speed (stats.StateShift): their ratios
// then differ by more than the machine's speed, and the comparison can show a change that is not there. Artifacts of
// two engines get none.
func stateWarning(a, b *artifact.Artifact, fileA, fileB string) string {
	// Two engines' ref_js_loops are different loops (an interpreter's and a JIT's differ tenfold): their speeds say
	// nothing of the machine's state.
	if !artifact.SameDevice(a, b) || a.Engine != b.Engine {
		return ""
	}
	shift := stats.StateShift(a.RefSamples(), b.RefSamples(), stats.DefaultStateShift)
	if !shift.Shifted {
		return ""
	}
	la, lb := shift.LeastA, shift.LeastB
	slow, fast := fileB, fileA
	if la > lb {
		slow, fast = fileA, fileB
	}
	return fmt.Sprintf("%s's least sample was %s in %s and %s in %s (x%.2f): %s never ran at the speed of %s, and "+
		"in a state that slow the ratios change too (docs/gate.md); measure both in one session (bench-bridge compare)",
		cases.RefCase, artifact.FormatNs(la), fileA, artifact.FormatNs(lb), fileB, stats.Ratio(lb, la), slow, fast)
}

// intervalWarning is one line for every case of arts whose interval the table does not show, or "". It counts from
// the artifacts (labels[i] names arts[i]): the table model keeps no samples for it.
func intervalWarning(labels []string, arts []*artifact.Artifact) string {
	var parts []string
	for i, a := range arts {
		n, fewest, most := 0, 0, 0
		for _, c := range a.Cases {
			if hasInterval(c.PILevel) {
				continue
			}
			k := len(c.SamplesNs)
			if n == 0 || k < fewest {
				fewest = k
			}
			most = max(most, k)
			n++
		}
		if n == 0 {
			continue
		}
		samples := fmt.Sprintf("%d %s", fewest, plural(fewest, "sample", "samples"))
		if most != fewest {
			samples = fmt.Sprintf("%d to %d samples", fewest, most)
		}
		procs := len(a.Processes)
		parts = append(parts, fmt.Sprintf("%d %s of %s (%d %s, %s)", n, plural(n, "case", "cases"), labels[i],
			procs, plural(procs, "process", "processes"), samples))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("no %.0f%% interval, shown as -, for %s: too few to compute one (an interval takes 2 processes or more: --runs)", 100*stats.Level, strings.Join(parts, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// HasInterval reports whether the cell has a median interval at stats.Level; an artifact's interval of a lower level
// (too few samples) is not shown.
func (c Cell) HasInterval() bool { return hasInterval(c.PILevel) }

// hasInterval reports whether an interval of the given level reaches stats.Level.
func hasInterval(level float64) bool { return level >= stats.Level-1e-9 }

// caseOrder is the catalogue's order, then any other case in the order the artifacts list them.
func caseOrder(arts []*artifact.Artifact) []string {
	present := map[string]bool{}
	var extra []string
	for _, a := range arts {
		for _, c := range a.Cases {
			if _, ok := cases.Lookup(c.Name); !ok && !present[c.Name] {
				extra = append(extra, c.Name)
			}
			present[c.Name] = true
		}
		for _, f := range a.Failures {
			present[f.Name] = true
		}
	}
	var order []string
	for _, n := range cases.Names() {
		if present[n] {
			order = append(order, n)
		}
	}
	return append(order, extra...)
}

func cellFor(a *artifact.Artifact, name string) Cell {
	c := a.Case(name)
	if c == nil {
		for _, f := range a.Failures {
			if f.Name == name {
				return Cell{Missing: true, Failed: f.Reason}
			}
		}
		return Cell{Missing: true}
	}
	cell := Cell{MedianNs: c.MedianNs, PILevel: c.PILevel, RatioToRef: c.RatioToRef, CrossingsPerMs: c.CrossingsPerMs,
		InstructionsPerOp: c.InstructionsPerOp}
	if cell.HasInterval() {
		cell.PILowNs, cell.PIHighNs = c.PILowNs, c.PIHighNs
	}
	if m := c.Memory; m != nil {
		cell.AllocsPerOp, cell.BytesPerOp = m.AllocsPerOp, m.BytesPerOp
	}
	return cell
}

// compare fills the cell's comparison of case c of artifact a with case first of artifact base, the first column.
// ByTime: the ratio of medians and the U test on the samples. ByRatio: the ratio of ratios to ref_js_loop, and on
// the same device the U test on the values the gate tests (stats.RatioValues: with several processes, their
// ratios); between devices no test at all, since their samples measure different machines, nor for ref_js_loop.
func compare(cell *Cell, base, a *artifact.Artifact, first, c *artifact.Case, by string) {
	x, y := first.SamplesNs, c.SamplesNs
	switch by {
	case ByTime:
		r := stats.Ratio(c.MedianNs, first.MedianNs)
		cell.VsFirst = &r
	default:
		refA, refB := base.Case(cases.RefCase), a.Case(cases.RefCase)
		if first.RatioToRef == nil || c.RatioToRef == nil || refA == nil || refB == nil {
			return
		}
		r := stats.Ratio(*c.RatioToRef, *first.RatioToRef)
		cell.VsFirst = &r
		if !artifact.SameDevice(base, a) || c.Name == cases.RefCase {
			return // ref_js_loop's ratio is 1 by definition: nothing to test, as in the gate
		}
		x = stats.RatioValues(first.ProcessRatios(), len(first.Processes), first.SamplesNs, refA.MedianNs)
		y = stats.RatioValues(c.ProcessRatios(), len(c.Processes), c.SamplesNs, refB.MedianNs)
	}
	cmp := stats.Compare(x, y, stats.DefaultThresholds)
	if cmp.Err != nil {
		cell.TestError = cmp.Err.Error()
		return
	}
	cell.PValue = &cmp.P
	cell.Significant = cmp.Significant
}

// engineNote is one line when arts are of several engines: each engine and whether it interprets or compiles (JIT),
// and how their ×ref compare; "" for one engine.
func engineNote(arts []*artifact.Artifact) string {
	var parts []string
	seen := map[artifact.Engine]bool{}
	for _, a := range arts {
		if seen[a.Engine] || a.Engine.Name == "" {
			continue
		}
		seen[a.Engine] = true
		kind := "unknown kind"
		if e, err := engines.Lookup(a.Engine.Name); err == nil {
			kind = e.Kind
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", a.Engine, kind))
	}
	if len(parts) < 2 {
		return ""
	}
	return "engines: " + strings.Join(parts, ", ") + ": each ×ref is over the engine's own ref_js_loop, which a JIT " +
		"runs several times faster than an interpreter: compare ×ref between engines of one kind, ns/op between any (docs/engines.md)"
}

// notes says what a reader must know about an artifact beyond its numbers.
func notes(label string, a *artifact.Artifact) []string {
	var out []string
	if a.Device.Emulated {
		why := ""
		if a.Device.EmulatedReason != "" {
			why = " (" + a.Device.EmulatedReason + ")"
		}
		out = append(out, fmt.Sprintf("%s: measured under an emulator%s: these are not the device's numbers", label, why))
	}
	if !a.Complete {
		out = append(out, fmt.Sprintf("%s: incomplete run (%d cases measured, %d failed)", label, len(a.Cases), len(a.Failures)))
	}
	for _, f := range a.Failures {
		out = append(out, fmt.Sprintf("%s: %s failed: %s", label, f.Name, f.Reason))
	}
	if note := a.MarkedNote(); note != "" {
		out = append(out, fmt.Sprintf("%s: %s", label, note))
	}
	for _, w := range a.Warnings {
		if stats.IsTooFewForInterval(w) || strings.HasPrefix(w, artifact.UnstablePrefix) {
			continue // the table's own warnings say these once for every artifact
		}
		out = append(out, fmt.Sprintf("%s: %s", label, w))
	}
	return out
}
