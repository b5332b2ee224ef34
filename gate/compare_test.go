package gate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/internal/fakeart"
)

// compare's report is the table's comparisons themselves, and its markdown opens with the verdict for a job summary;
// a column that could not be compared is an error naming its file.
func TestTableReport(t *testing.T) {
	a := fakeart.Artifact(1, 0.02, fakeart.Base)
	b := fakeart.Artifact(1, 0.02, fakeart.Scaled(fakeart.Base, map[string]float64{"callback": 1.5}))
	a.Session.ID, b.Session.ID = "s", "s"
	table := analysis.Build([]analysis.Loaded{{File: "a.json", Artifact: a}, {File: "b.json", Artifact: b}}, analysis.Options{}, nil)
	r, err := TableReport(table, false)
	if err != nil || len(r.Results) != 1 || r.Results[0] != table.Columns[1].Comparison {
		t.Fatalf("report %+v, %v: want the table's one comparison", r, err)
	}
	var out bytes.Buffer
	if err := RenderCompare(&out, table, r, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "## ❌ gate: 1 regressed: json linux: callback\n") || !strings.Contains(out.String(), "| `callback` |") {
		t.Errorf("markdown:\n%s", out.String())
	}

	noRef := fakeart.Artifact(2, 0.02, map[string]float64{"callback": 1250})
	table = analysis.Build([]analysis.Loaded{{File: "a.json", Artifact: a}, {File: "c.json", Artifact: noRef}}, analysis.Options{}, nil)
	if _, err := TableReport(table, false); err == nil || !strings.Contains(err.Error(), "c.json") {
		t.Errorf("a column without ref_js_loop: err %v", err)
	}
}
