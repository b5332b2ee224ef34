package reports

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/internal/textsafe"
	"github.com/bench-bridge/bench-bridge/stats"
)

// Formats lists the formats Export writes: the table's views and the exporters.
var Formats = []string{"text", "markdown", "csv", "json", "benchstat", "html"}

// exporters write artifacts (read from files) in their format, one function per format, as hyperfine's export/.
var exporters = map[string]func(w io.Writer, arts []*artifact.Artifact, files []string) error{
	"csv":       exportCSV,
	"json":      exportJSON,
	"benchstat": exportBenchstat,
}

// Export writes the artifacts read from files in format: an exporter's, or a view of their table.
func Export(w io.Writer, arts []*artifact.Artifact, files []string, format string) error {
	if export, ok := exporters[format]; ok {
		return export(w, arts, files)
	}
	return Render(w, Build(arts, files), format)
}

// Render writes a view of t: text, markdown or html.
func Render(w io.Writer, t *Table, format string) error {
	switch format {
	case "text", "markdown":
		return t.Document().Render(w, format)
	case "html":
		return renderHTML(w, t)
	}
	if _, ok := exporters[format]; ok {
		return fmt.Errorf("format %q exports the artifacts, not a table (reports.Export)", format)
	}
	return fmt.Errorf("unknown format %q (have %s)", format, strings.Join(Formats, ", "))
}

// exportJSON writes the artifacts' table model: every number the views show, the comparisons with the first.
func exportJSON(w io.Writer, arts []*artifact.Artifact, files []string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Build(arts, files))
}

// header is the column titles shared by text, markdown and html.
func (t *Table) header() []string {
	var out []string
	for _, h := range t.headings() {
		out = append(out, h.Name)
	}
	return out
}

// Ranks of the columns a table fitted to a terminal leaves out, the highest first (Heading.Drop): the memory
// counts, then what follows from other columns or has its own export, then the interval and the p-value. The case,
// ns/op, ×ref and the comparison stay.
const (
	dropBytes = 6 - iota
	dropAllocs
	dropPerMs
	dropInstructions
	dropInterval
	dropP
)

// ColumnKeys name the kinds of column a table has, for show --columns: every artifact's ns/op, interval, ×ref,
// crossings per ms, instructions, allocations and bytes per op, and the comparison with the first and its p-value.
var ColumnKeys = []string{"ns", "interval", "ref", "per-ms", "instructions", "allocs", "bytes", "vs", "p"}

// headings are the table's columns: per artifact its numbers, then the comparison with the first. In full, every
// heading names its artifact where it is not clear from the column before; fitted to a terminal, the artifact's label
// is the group above its columns.
func (t *Table) headings() []Heading {
	h := []Heading{{Name: "case"}}
	interval := fmt.Sprintf("%.0f%% interval", 100*stats.Level)
	for i, c := range t.Columns {
		col := func(key, name, short string, drop int) {
			h = append(h, Heading{Name: name, Right: true, Group: c.Label, Short: short, Drop: drop, Key: key})
		}
		col("ns", c.Label+" ns/op", "ns/op", 0)
		col("interval", interval, fmt.Sprintf("%.0f%% PI", 100*stats.Level), dropInterval)
		col("ref", "×ref", "", 0)
		col("per-ms", "per ms", "", dropPerMs)
		if t.hasInstructions() {
			col("instructions", "instr/op", "", dropInstructions)
		}
		if t.hasMemory() {
			col("allocs", "allocs/op", "", dropAllocs)
			col("bytes", "bytes/op", "", dropBytes)
		}
		if i > 0 {
			vs, short := "vs "+t.Columns[0].Label, "vs first"
			if c.VsFirst == ByRatio {
				vs, short = "×ref "+vs, "×ref vs first"
			}
			col("vs", vs, short, 0)
			col("p", "p", "", dropP)
		}
	}
	return h
}

// hasInstructions reports whether an artifact has callgrind counts: then text and markdown show them too.
func (t *Table) hasInstructions() bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.InstructionsPerOp != nil {
				return true
			}
		}
	}
	return false
}

// hasMemory reports whether an artifact has memory counts: then text and markdown show allocs/op and bytes/op.
func (t *Table) hasMemory() bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.AllocsPerOp != nil || c.BytesPerOp != nil {
				return true
			}
		}
	}
	return false
}

// cells renders one row's cells as the strings text and markdown show.
func (t *Table) cells(r Row) []string {
	out := []string{r.Case}
	for i, c := range r.Cells {
		switch {
		case c.Missing && c.Failed != "":
			out = append(out, "failed", "", "", "")
		case c.Missing:
			out = append(out, "-", "", "", "")
		default:
			out = append(out, artifact.FormatNs(c.MedianNs), interval(c), ratio(c.RatioToRef), count(c.CrossingsPerMs))
		}
		if t.hasInstructions() {
			out = append(out, count(c.InstructionsPerOp))
		}
		if t.hasMemory() {
			out = append(out, perOp(c.AllocsPerOp), perOp(c.BytesPerOp))
		}
		if i > 0 {
			vs, p := comparison(c)
			out = append(out, vs, p)
		}
	}
	return out
}

// interval shows the median's prediction interval as benchstat shows an interval: ± the larger relative distance
// (stats.Prediction.Spread); "-" when the artifact has no interval at stats.Level (never ±0% for an interval that
// was not computed).
func interval(c Cell) string {
	if c.MedianNs == 0 || !c.HasInterval() {
		return "-"
	}
	spread := stats.Prediction{Median: c.MedianNs, Low: c.PILowNs, High: c.PIHighNs}.Spread()
	return fmt.Sprintf("±%.0f%%", 100*spread)
}

func ratio(v *float64) string {
	if v == nil {
		return "-"
	}
	return significant(*v)
}

// significant prints a ratio with three significant digits: 1.74, 27.6, 276.
func significant(v float64) string {
	return strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(math.Abs(v))+1e-9))), 64)
}

// count prints an optional count with thousands separators, "-" when absent.
func count(v *float64) string {
	if v == nil {
		return "-"
	}
	return thousands(*v)
}

// perOp prints a count per op: whole numbers as they are (0, 21, 1,216), others with one decimal (21.7); "-" when
// absent.
func perOp(v *float64) string {
	switch {
	case v == nil:
		return "-"
	case *v == math.Trunc(*v) || *v >= 10:
		return thousands(math.Round(*v))
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

// comparison shows the ratio to the first column, or "~" when the U test finds no significant difference; p is "-"
// where there was no test (artifacts of different devices).
func comparison(c Cell) (vs, p string) {
	switch {
	case c.VsFirst == nil:
		return "", ""
	case c.TestError != "":
		return significant(*c.VsFirst) + "x", "? (" + c.TestError + ")"
	case c.PValue == nil:
		return significant(*c.VsFirst) + "x", "-"
	case !c.Significant:
		return "~", fmt.Sprintf("p=%.3f", *c.PValue)
	}
	return significant(*c.VsFirst) + "x", fmt.Sprintf("p=%.3f", *c.PValue)
}

// thousands prints a count rounded to an integer with thousands separators: 38,100.
func thousands(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// frameLine is the closing line in the report's words.
func (t *Table) frameLine() string {
	var parts []string
	for i, f := range t.Frame {
		if f != nil {
			parts = append(parts, fmt.Sprintf("%s crossings (%s)", thousands(*f), t.Columns[i].Label))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "At 60 Hz, 1 ms of a frame buys " + strings.Join(parts, ", ") + " of " + FrameCase + "."
}

// Document is the table as show prints it: one section, the frame line under it, then the warnings and notes.
func (t *Table) Document() *Document {
	sec := Section{Paragraph: t.frameLine(), Footer: t.footNotes(), Columns: t.headings()}
	for _, r := range t.Rows {
		sec.Rows = append(sec.Rows, Entries(t.cells(r)...))
	}
	return &Document{Sections: []Section{sec}}
}

// View is the table as show prints it: only the columns of these ColumnKeys (every column when there are none),
// and, for a terminal of width columns (0 for none), fitted to it (Document.Fit) with a line that names the columns
// it left out and where to find them.
func (t *Table) View(columns []string, width int) (*Document, error) {
	d := t.Document()
	if len(columns) > 0 {
		for _, c := range columns {
			if !slices.Contains(ColumnKeys, c) {
				return nil, fmt.Errorf("no column %q (have %s)", c, strings.Join(ColumnKeys, ", "))
			}
		}
		d.Keep(columns)
		// What speaks only of columns left out goes with them: the frame line of crossings per ms, and the
		// warning about wide intervals of ns/op.
		sec := &d.Sections[0]
		if !slices.Contains(columns, "per-ms") {
			sec.Paragraph = ""
		}
		if !slices.Contains(columns, "ns") && !slices.Contains(columns, "interval") {
			sec.Footer = slices.DeleteFunc(sec.Footer, func(f string) bool {
				return strings.HasPrefix(f, warningPrefix+artifact.UnstablePrefix)
			})
		}
	}
	if width <= 0 {
		return d, nil
	}
	if left := d.Fit(width); len(left) > 0 {
		note := fmt.Sprintf("left out to fit %d columns: %s (--wide shows them; --format csv or json has "+
			"every number)", width, strings.Join(left, ", "))
		d.Sections[0].Footer = append([]string{note}, d.Sections[0].Footer...)
	}
	return d, nil
}

// warningPrefix opens each of the table's warnings under it.
const warningPrefix = "warning: "

// footNotes are the warnings, each prefixed warningPrefix, then the notes.
func (t *Table) footNotes() []string {
	var out []string
	for _, w := range t.Warnings {
		out = append(out, warningPrefix+w)
	}
	return append(out, t.Notes...)
}

// exportCSV writes one record per case and artifact, with raw numbers, for spreadsheets and scripts.
func exportCSV(w io.Writer, arts []*artifact.Artifact, files []string) error {
	t := Build(arts, files)
	cw := csv.NewWriter(w)
	cw.Write([]string{"case", "crossing", "artifact", "median_ns", "pi_low_ns", "pi_high_ns", "ratio_to_ref",
		"crossings_per_ms", "vs_first", "vs_first_by", "p_value", "failed", "emulated", "instructions_per_op",
		"allocs_per_op", "bytes_per_op"})
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	opt := func(v *float64) string {
		if v == nil {
			return ""
		}
		return num(*v)
	}
	for _, r := range t.Rows {
		for i, c := range r.Cells {
			col := t.Columns[i]
			emulated := ""
			if col.Emulated {
				emulated = "emulated"
				if col.EmulatedReason != "" {
					emulated += ": " + col.EmulatedReason
				}
			}
			rec := []string{textsafe.Line(r.Case), strconv.FormatBool(r.Crossing), textsafe.Line(col.Label), "", "", "", "", "", "", "", "",
				textsafe.Line(c.Failed), textsafe.Line(emulated), "", "", ""}
			if !c.Missing {
				rec[3] = num(c.MedianNs)
				if c.HasInterval() {
					rec[4], rec[5] = num(c.PILowNs), num(c.PIHighNs)
				}
				rec[6], rec[7], rec[8], rec[10] = opt(c.RatioToRef), opt(c.CrossingsPerMs), opt(c.VsFirst), opt(c.PValue)
				rec[13], rec[14], rec[15] = opt(c.InstructionsPerOp), opt(c.AllocsPerOp), opt(c.BytesPerOp)
				if c.VsFirst != nil {
					rec[9] = col.VsFirst
				}
			}
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}
