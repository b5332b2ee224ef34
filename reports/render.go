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

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/internal/textsafe"
	"github.com/bench-bridge/bench-bridge/stats"
)

// Formats lists the formats Render writes: every one a view of the same table, notes included.
var Formats = []string{"text", "markdown", "csv", "json", "benchstat", "html"}

// Render writes t in format, one function per format as hyperfine's export/: text and markdown (its Document),
// html, csv, json (the table itself) and benchstat (the samples of its artifacts).
func Render(w io.Writer, t *analysis.Table, format string) error {
	switch format {
	case "text", "markdown":
		return TableDocument(t).Render(w, format)
	case "html":
		return renderHTML(w, t)
	case "csv":
		return renderCSV(w, t)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(t)
	case "benchstat":
		return renderBenchstat(w, t)
	}
	return fmt.Errorf("unknown format %q (have %s)", format, strings.Join(Formats, ", "))
}

// header is the html page's column titles: the names of headings, every column in full (text and markdown take the
// headings themselves, through TableDocument, and may fit them to a terminal).
func header(t *analysis.Table) []string {
	var out []string
	for _, h := range headings(t) {
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
var ColumnKeys = []string{"ns", "interval", nsInterval, "ref", "per-ms", "instructions", "allocs", "bytes", "vs", "p"}

// nsInterval is the column key of ns/op and its interval in one cell, "42.8ns ±16%": the two columns joined, for a
// table of many artifacts, where a figure and how far another run may land from it are read together.
const nsInterval = "ns-interval"

// headings are the table's columns: per artifact its numbers, then the comparison with the first. In full, every
// heading names its artifact where it is not clear from the column before; fitted to a terminal, the artifact's label
// is the group above its columns.
func headings(t *analysis.Table) []Heading {
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
		if hasInstructions(t) {
			col("instructions", "instr/op", "", dropInstructions)
		}
		if hasMemory(t) {
			col("allocs", "allocs/op", "", dropAllocs)
			col("bytes", "bytes/op", "", dropBytes)
		}
		if i > 0 {
			col("vs", "×ref vs "+t.Columns[0].Label, "×ref vs first", 0)
			col("p", "p", "", dropP)
		}
	}
	return h
}

// hasInstructions reports whether an artifact has callgrind counts: then text and markdown show them too.
func hasInstructions(t *analysis.Table) bool {
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
func hasMemory(t *analysis.Table) bool {
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
func cells(t *analysis.Table, r analysis.Row) []string {
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
		if hasInstructions(t) {
			out = append(out, count(c.InstructionsPerOp))
		}
		if hasMemory(t) {
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
func interval(c analysis.Cell) string {
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

// comparison shows the column's verdict against the first as benchstat would: the ratio of ×ref where the change
// counts, "~" where it does not (not significant, or under the minimum effect: the notes say which), the ratio with
// "not judged" or "undecided" for p where the test could not decide (another device, too few processes, rounds that
// ended unclear: the notes say why), and the ratio with "-" where nothing was compared (ref_js_loop).
func comparison(c analysis.Cell) (vs, p string) {
	if c.VsFirst != nil {
		vs, p = significant(*c.VsFirst)+"x", "-"
	}
	cmp := c.Comparison
	if cmp == nil {
		return vs, p
	}
	switch {
	case cmp.Verdict == analysis.Unjudged || cmp.Verdict == analysis.Undecided:
		return vs, string(cmp.Verdict)
	case cmp.P == nil:
	case cmp.Verdict == analysis.Regressed || cmp.Verdict == analysis.Improved:
		return vs, fmt.Sprintf("p=%.3f", *cmp.P)
	case cmp.Verdict == analysis.Same || cmp.Verdict == analysis.Unseen:
		return "~", fmt.Sprintf("p=%.3f", *cmp.P)
	}
	return vs, p
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
func frameLine(t *analysis.Table) string {
	var parts []string
	for i, f := range t.Frame {
		if f != nil {
			parts = append(parts, fmt.Sprintf("%s crossings (%s)", thousands(*f), t.Columns[i].Label))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "At 60 Hz, 1 ms of a frame buys " + strings.Join(parts, ", ") + " of " + analysis.FrameCase + "."
}

// TableDocument is the table as show prints it: one section, the frame line under it, then the warnings and notes.
func TableDocument(t *analysis.Table) *Document {
	sec := Section{Paragraph: frameLine(t), Footer: footNotes(t), Columns: headings(t)}
	for _, r := range t.Rows {
		sec.Rows = append(sec.Rows, Entries(cells(t, r)...))
	}
	return &Document{Sections: []Section{sec}}
}

// View is the table as show prints it: only the columns of these ColumnKeys (every column when there are none),
// and, for a terminal of width columns (0 for none), fitted to it (Document.Fit) with a line that names the columns
// it left out and where to find them.
func View(t *analysis.Table, columns []string, width int) (*Document, error) {
	for _, c := range columns {
		if !slices.Contains(ColumnKeys, c) {
			return nil, fmt.Errorf("no column %q (have %s)", c, strings.Join(ColumnKeys, ", "))
		}
	}
	// What speaks only of columns left out goes with them: the warning about wide intervals of ns/op, and the frame
	// line of crossings per ms.
	joined := slices.Contains(columns, nsInterval)
	if joined {
		columns = append(slices.DeleteFunc(slices.Clone(columns), func(c string) bool { return c == nsInterval }), "ns", "interval")
	}
	if len(columns) > 0 && !slices.Contains(columns, "ns") && !slices.Contains(columns, "interval") {
		kept := *t
		kept.Warnings = slices.DeleteFunc(slices.Clone(t.Warnings), func(w analysis.Warning) bool { return w.Kind == analysis.Unstable })
		t = &kept
	}
	d := TableDocument(t)
	if len(columns) > 0 {
		d.Keep(columns)
		if !slices.Contains(columns, "per-ms") {
			d.Sections[0].Paragraph = ""
		}
		if joined {
			d.Sections[0].joinIntervals()
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

// joinIntervals puts each interval column's cells into the ns/op column before it ("42.8ns ±16%"), and drops it.
func (s *Section) joinIntervals() {
	for i := 0; i+1 < len(s.Columns); i++ {
		if s.Columns[i].Key != "ns" || s.Columns[i+1].Key != "interval" {
			continue
		}
		for _, row := range s.Rows {
			if pi := row[i+1].Text; pi != "" && pi != "-" {
				row[i].Text += " " + pi
			}
		}
		s.Columns[i].Name += ", " + s.Columns[i+1].Name
		s.Columns[i].Short += " ±"
		s.Columns[i].Key = nsInterval
		s.remove(func(h Heading) bool { return h.Key == "interval" && h.Group == s.Columns[i].Group })
	}
}

// footNotes are the warnings, then the notes, as lines (analysis.Warning.String).
func footNotes(t *analysis.Table) []string {
	var out []string
	for _, w := range append(slices.Clone(t.Warnings), t.Notes...) {
		out = append(out, w.String())
	}
	return out
}

// renderCSV writes one record per case and artifact, with raw numbers, for spreadsheets and scripts.
func renderCSV(w io.Writer, t *analysis.Table) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"case", "crossing", "artifact", "median_ns", "pi_low_ns", "pi_high_ns", "ratio_to_ref",
		"crossings_per_ms", "vs_first", "verdict", "p_value", "failed", "emulated", "instructions_per_op",
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
				rec[6], rec[7], rec[8] = opt(c.RatioToRef), opt(c.CrossingsPerMs), opt(c.VsFirst)
				rec[13], rec[14], rec[15] = opt(c.InstructionsPerOp), opt(c.AllocsPerOp), opt(c.BytesPerOp)
			}
			if cmp := c.Comparison; cmp != nil { // a case missing here still has its verdict: missing
				rec[9], rec[10] = string(cmp.Verdict), opt(cmp.P)
			}
			cw.Write(rec)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return commentLines(w, t)
}

// commentLines writes the table's warnings and notes after its data, one "# " line each: csv readers and benchstat
// skip them, and a reader of the file still has them.
func commentLines(w io.Writer, t *analysis.Table) error {
	for _, n := range footNotes(t) {
		if _, err := fmt.Fprintln(w, "# "+textsafe.Line(n)); err != nil {
			return err
		}
	}
	return nil
}
