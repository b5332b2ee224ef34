package analysis

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/stats"
)

// FrameCase is the case whose crossings per ms the closing line quotes, as the report does.
const FrameCase = "script_to_host_scalar"

// Table is loaded artifacts side by side, as every view shows them: one row per case, one column per artifact, each
// column after the first compared with the first by Compare, and the warnings and notes that go with them. show,
// compare and the measuring commands render it (package reports) in every format; it holds no decision for them to
// make.
type Table struct {
	Columns []Column `json:"columns"`
	Rows    []Row    `json:"rows"`
	// Frame is what 1 ms of a 60 Hz frame buys in FrameCase crossings, per column (nil where not measured).
	Frame []*float64 `json:"frame_crossings_per_ms"`
	// Warnings say what limits the comparison: artifacts of different origins, runs that never ran at one speed,
	// intervals that could not be computed or are too wide. One each, however many cases they concern.
	Warnings []Warning `json:"warnings"`
	// Notes say what a reader must know about one artifact, or one comparison, beyond its numbers.
	Notes []Warning `json:"notes"`
	// Alpha is the significance level the columns were compared with the first at (the gate's, from the options).
	Alpha float64 `json:"alpha"`
	// Artifacts are the loaded artifacts, for the views that export their samples (benchstat).
	Artifacts []Loaded `json:"-"`
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
	// Comparison is how the column compares with the first (nil in the first, and where it could not be compared):
	// its Method, thresholds and notes. Its cases are the rows' Cell.Comparison.
	Comparison *Result `json:"-"`
	// Method is Comparison's, for scripts: paired, unpaired or none.
	Method Method `json:"vs_first_method,omitempty"`
	// NotCompared says why the column could not be compared with the first, when it could not.
	NotCompared string `json:"not_compared,omitempty"`
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
	// VsFirst is the case's ×ref against the first column's (absent in the first column itself): 1 + the change
	// its Comparison measured, else the ratio of the two ×ref.
	VsFirst *float64 `json:"vs_first,omitempty"`
	// Comparison is the case's verdict against the first column, the same one compare and gate print below the
	// table; absent in the first column, for ref_js_loop (its ratio is 1 by definition) and where nothing compared.
	Comparison *CaseResult `json:"comparison,omitempty"`
	// InstructionsPerOp is the callgrind count, when the artifact has one.
	InstructionsPerOp *float64 `json:"instructions_per_op,omitempty"`
	// AllocsPerOp and BytesPerOp are what one op allocates, engine and host together, when the artifact has them.
	AllocsPerOp *float64 `json:"allocs_per_op,omitempty"`
	BytesPerOp  *float64 `json:"bytes_per_op,omitempty"`
}

// HasInterval reports whether the cell has a median interval at stats.Level; an artifact's interval of a lower level
// (too few samples) is not shown.
func (c Cell) HasInterval() bool { return hasInterval(c.PILevel) }

// hasInterval reports whether an interval of the given level reaches stats.Level.
func hasInterval(level float64) bool { return level >= stats.Level-1e-9 }

// Build makes the table of loaded artifacts, the first one the base: every column after it is compared with it by
// Compare under o (its time thresholds; o.Noise is ignored). noise, when not nil, gives an artifact's device noise
// from the history: it is noted under the table, and the column's comparison says "cannot see" where it hides the
// minimum effect.
func Build(loaded []Loaded, o Options, noise func(*artifact.Artifact) *Noise) *Table {
	o = o.WithDefaults()
	o.Metric = Time
	t := &Table{Warnings: []Warning{}, Notes: []Warning{}, Alpha: o.Alpha, Artifacts: loaded}
	arts, files := make([]*artifact.Artifact, len(loaded)), make([]string, len(loaded))
	for i, l := range loaded {
		arts[i], files[i] = l.Artifact, l.File
	}
	labels := Labels(arts, files)
	noises := make([]*Noise, len(arts))
	for i, a := range arts {
		col := Column{Label: labels[i], File: files[i], Complete: a.Complete, Emulated: a.Device.Emulated,
			EmulatedReason: a.Device.EmulatedReason}
		if noise != nil {
			noises[i] = noise(a)
		}
		if i > 0 {
			if beyond := beyondOrigin(arts[0], a); len(beyond) > 0 {
				t.Warnings = append(t.Warnings, originWarning(files[0], files[i], beyond, o.AcrossOrigins))
			}
			if w := stateWarning(arts[0], a, files[0], files[i]); w != "" {
				t.Warnings = append(t.Warnings, Warning{Kind: StateShift, Text: w})
			}
			co := o
			co.Noise = noises[i]
			res, err := Compare(loaded[0], loaded[i], co)
			if err != nil {
				col.NotCompared = err.Error()
				t.Notes = append(t.Notes, Warning{Kind: NoComparison, Artifact: labels[i],
					Text: "not compared with " + labels[0] + ": " + err.Error()})
			} else {
				col.Comparison, col.Method = res, res.Method
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
			c := a.Case(name)
			if c != nil {
				row.Crossing = row.Crossing || c.Crossing
			}
			if i > 0 {
				compared(&cell, name, arts[0].Case(name), c, t.Columns[i].Comparison)
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	if n := engineNote(arts); n != "" {
		t.Notes = append(t.Notes, Warning{Kind: Engines, Text: n})
	}
	for i, a := range arts {
		var frame *float64
		if c := a.Case(FrameCase); c != nil {
			frame = c.CrossingsPerMs
		}
		t.Frame = append(t.Frame, frame)
		t.Notes = append(t.Notes, notes(labels[i], a)...)
		if n := noises[i]; n != nil && len(n.Visible) > 0 {
			t.Notes = append(t.Notes, Warning{Kind: NoiseNote, Artifact: labels[i], Text: noiseText(n)})
		}
		if res := t.Columns[i].Comparison; res != nil {
			for _, c := range res.Cases {
				if c.UnderMinimum {
					t.Notes = append(t.Notes, Warning{Kind: UnderMinimum, Artifact: labels[i],
						Text: fmt.Sprintf("%s: %s (against %s): no change that counts", c.Case, c.Note, labels[0])})
				}
			}
		}
	}
	if w := intervalWarning(labels, arts); w != "" {
		t.Warnings = append(t.Warnings, Warning{Kind: NoInterval, Text: w})
	}
	if w := unstableWarning(arts, labels, stats.DefaultStability); w != "" {
		t.Warnings = append(t.Warnings, Warning{Kind: Unstable, Text: w})
	}
	return t
}

// compared fills the cell of case name with its comparison against first, the first column's case, from res: c is
// the column's case (nil where it is missing, whose verdict still says so).
func compared(cell *Cell, name string, first, c *artifact.Case, res *Result) {
	if first != nil && c != nil && first.RatioToRef != nil && c.RatioToRef != nil {
		r := stats.Ratio(*c.RatioToRef, *first.RatioToRef)
		cell.VsFirst = &r
	}
	if res == nil {
		return
	}
	for i := range res.Cases {
		if cr := &res.Cases[i]; cr.Case == name {
			cell.Comparison = cr // every verdict, "not judged" and "missing" too: a view shows what the comparison said
			if cr.Baseline > 0 {
				r := 1 + cr.Change
				cell.VsFirst = &r
			}
		}
	}
}

// beyondOrigin is how a's and b's origins differ beyond what comparing two programs is made of
// (artifact.BeyondPrograms), sessions left out: ×ref takes out the session, not another device or build.
func beyondOrigin(a, b *artifact.Artifact) []artifact.Difference {
	return slices.DeleteFunc(artifact.BeyondPrograms(artifact.Differences(a, b)), func(d artifact.Difference) bool {
		return d.Kind == artifact.DiffSession
	})
}

// originWarning is the one line that says why a column compares with the first by ×ref only, without a test.
func originWarning(first, file string, ds []artifact.Difference, across bool) Warning {
	how := "comparing ×ref only, not judged (--across-origins judges anyway)"
	if across {
		how = "comparing ×ref, judged anyway (--across-origins)"
	}
	return Warning{Kind: Origin, Text: fmt.Sprintf("%s and %s come from %s: %s", first, file, artifact.Describe(ds), how)}
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

// stateWarning is one line when a and b, from one device, did not run at one speed (stats.StateShift): their ratios
// then differ by more than the machine's speed, and the comparison can show a change that is not there. Artifacts of
// two engines get none.
func stateWarning(a, b *artifact.Artifact, fileA, fileB string) string {
	shift := stateShift(a, b)
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
// the artifacts (labels[i] names arts[i]): the table keeps no samples for it.
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
		return Cell{Missing: true, Failed: failed(a, name)}
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
func notes(label string, a *artifact.Artifact) []Warning {
	var out []Warning
	add := func(kind Kind, text string) { out = append(out, Warning{Kind: kind, Artifact: label, Text: text}) }
	if a.Device.Emulated {
		why := ""
		if a.Device.EmulatedReason != "" {
			why = " (" + a.Device.EmulatedReason + ")"
		}
		add(Emulated, fmt.Sprintf("measured under an emulator%s: these are not the device's numbers", why))
	}
	if !a.Complete {
		add(Incomplete, fmt.Sprintf("incomplete run (%d cases measured, %d failed)", len(a.Cases), len(a.Failures)))
	}
	for _, f := range a.Failures {
		add(CaseFailed, fmt.Sprintf("%s failed: %s", f.Name, f.Reason))
	}
	if note := a.MarkedNote(); note != "" {
		add(Marked, note)
	}
	for _, w := range a.Warnings {
		add(Recorded, w)
	}
	return out
}

// noiseText says what a device's nightly can see: the least change per case, the most sensitive and the least.
func noiseText(n *Noise) string {
	names := slices.Sorted(maps.Keys(n.Visible))
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(n.Visible[a], n.Visible[b]) })
	lo, hi := names[0], names[len(names)-1]
	return fmt.Sprintf("history of %s: its nightly sees changes of %.1f%% (%s) to %.1f%% (%s) and more", n.Device,
		100*n.Visible[lo], lo, 100*n.Visible[hi], hi)
}
