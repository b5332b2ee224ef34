// Package reports builds the side-by-side table of artifacts that `show` prints, and renders it as text, markdown,
// csv or json. The table is built once; every format is a renderer of the same model.
package reports

import (
	"fmt"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
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
	Notes []string   `json:"notes"`
}

// Column is one artifact.
type Column struct {
	Label    string `json:"label"`
	File     string `json:"file"`
	Complete bool   `json:"complete"`
	Emulated bool   `json:"emulated"`
	// Device is where the artifact was measured, for renderers that name it (benchstat's goos, goarch, cpu).
	Device artifact.Device `json:"-"`
}

// Row is one case across the artifacts.
type Row struct {
	Case     string `json:"case"`
	Crossing bool   `json:"crossing"`
	Cells    []Cell `json:"cells"`
}

// Cell is one case in one artifact. Missing is set when the artifact has no result for the case.
type Cell struct {
	Missing        bool     `json:"missing,omitempty"`
	Failed         string   `json:"failed,omitempty"`
	MedianNs       float64  `json:"median_ns,omitempty"`
	CILowNs        float64  `json:"ci_low_ns,omitempty"`
	CIHighNs       float64  `json:"ci_high_ns,omitempty"`
	RatioToRef     *float64 `json:"ratio_to_ref,omitempty"`
	CrossingsPerMs *float64 `json:"crossings_per_ms,omitempty"`
	// Against the first column (absent in the first column itself).
	VsFirst     *float64 `json:"vs_first,omitempty"`
	PValue      *float64 `json:"p_value,omitempty"`
	Significant bool     `json:"significant,omitempty"`
	TestError   string   `json:"test_error,omitempty"`
	// The raw numbers, for renderers that need every sample (benchstat).
	SamplesNs  []float64 `json:"-"`
	Iterations int64     `json:"-"`
	// InstructionsPerOp is the callgrind count, when the artifact has one.
	InstructionsPerOp *float64 `json:"instructions_per_op,omitempty"`
}

// Alpha is the significance level of the comparison with the first column.
const Alpha = 0.05

// Build makes the table for artifacts read from files (files[i] is where arts[i] came from).
func Build(arts []*artifact.Artifact, files []string) *Table {
	t := &Table{Notes: []string{}}
	labels := map[string]int{}
	for _, a := range arts {
		labels[a.Label()]++
	}
	for i, a := range arts {
		label := a.Label()
		if labels[label] > 1 {
			label += " (" + files[i] + ")"
		}
		t.Columns = append(t.Columns, Column{Label: label, File: files[i], Complete: a.Complete, Emulated: a.Device.Emulated, Device: a.Device})
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
					compare(&cell, first, c)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	for i, a := range arts {
		var frame *float64
		if c := a.Case(FrameCase); c != nil {
			frame = c.CrossingsPerMs
		}
		t.Frame = append(t.Frame, frame)
		t.Notes = append(t.Notes, notes(t.Columns[i].Label, a)...)
	}
	return t
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
		for _, f := range a.Failures {
			if f.Name == name {
				return Cell{Missing: true, Failed: f.Reason}
			}
		}
		return Cell{Missing: true}
	}
	return Cell{MedianNs: c.MedianNs, CILowNs: c.CILowNs, CIHighNs: c.CIHighNs, RatioToRef: c.RatioToRef, CrossingsPerMs: c.CrossingsPerMs,
		SamplesNs: c.SamplesNs, Iterations: c.Iterations, InstructionsPerOp: c.InstructionsPerOp}
}

// compare fills the cell's comparison with the first column: the ratio of medians and a Mann-Whitney U test.
func compare(cell *Cell, first, c *artifact.Case) {
	r := c.MedianNs / first.MedianNs
	cell.VsFirst = &r
	p, err := stats.MannWhitneyU(first.SamplesNs, c.SamplesNs)
	if err != nil {
		cell.TestError = err.Error()
		return
	}
	cell.PValue = &p
	cell.Significant = p < Alpha
}

// notes says what a reader must know about an artifact beyond its numbers.
func notes(label string, a *artifact.Artifact) []string {
	var out []string
	if a.Device.Emulated {
		out = append(out, fmt.Sprintf("%s: measured under an emulator: these are not the device's numbers", label))
	}
	if !a.Complete {
		out = append(out, fmt.Sprintf("%s: incomplete run (%d cases measured, %d failed)", label, len(a.Cases), len(a.Failures)))
	}
	for _, f := range a.Failures {
		out = append(out, fmt.Sprintf("%s: %s failed: %s", label, f.Name, f.Reason))
	}
	for _, w := range a.Warnings {
		out = append(out, fmt.Sprintf("%s: %s", label, w))
	}
	return out
}
