package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/reports"
)

// TableReport is the gate report of a table's own comparisons (analysis.Table, Column.Comparison): every column
// after the first against the first, as compare shows them below its table, so that a pair has one verdict in both.
// It fails, naming the column's file, when a column could not be compared at all.
func TableReport(t *analysis.Table, allowUnjudged bool) (*Report, error) {
	r := &Report{Notes: []analysis.Warning{}, AllowUnjudged: allowUnjudged}
	for _, col := range t.Columns[1:] {
		if col.Comparison == nil {
			return nil, fmt.Errorf("%s: %s", col.File, col.NotCompared)
		}
		r.Results = append(r.Results, col.Comparison)
	}
	return r, nil
}

// RenderCompare writes what compare shows, the table and the report of its comparisons (TableReport), in format:
// one document in text or markdown (the markdown opens with the verdict as a heading, fit for a CI job summary such
// as $GITHUB_STEP_SUMMARY), or for json one object holding both, {"table": ..., "paired": ...}.
func RenderCompare(w io.Writer, t *analysis.Table, r *Report, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Table  *analysis.Table `json:"table"`
			Paired any             `json:"paired"`
		}{t, r.JSON()})
	case "text", "markdown":
		return reports.Join(reports.TableDocument(t), r.Document()).Render(w, format)
	}
	return fmt.Errorf("unknown format %q (have %s)", format, strings.Join(Formats, ", "))
}
