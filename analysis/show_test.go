package analysis

import (
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// show's ×ref test is the gate's: over artifacts of several processes, both test the per-process ratios, so that
// the p-value in the table is the one the gate decides on (docs/gate.md).
func TestRatioTestIsTheGates(t *testing.T) {
	files := []string{"../docs/reports/bench/floor-linux.json", "../docs/reports/bench/linux.json"}
	var arts []*artifact.Artifact
	var loaded []Loaded
	for _, f := range files {
		a, err := artifact.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		if a.Settings.Runs < 2 {
			t.Fatalf("%s: %d process, want an artifact of several", f, a.Settings.Runs)
		}
		arts, loaded = append(arts, a), append(loaded, Loaded{f, a})
	}
	table := Build(loaded, Options{}, nil)
	if got := table.Columns[1].Method; got != Unpaired {
		t.Fatalf("compared by %q, want %q", got, Unpaired)
	}
	res, err := Judge(arts[0], arts[1], files[0], files[1], Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range table.Rows {
		cell := r.Cells[1]
		for _, g := range res.Cases {
			if g.Case != r.Case || g.P == nil {
				continue
			}
			checked++
			if cell.Comparison == nil || cell.Comparison.P == nil || *cell.Comparison.P != *g.P || cell.Comparison.Verdict != g.Verdict {
				t.Errorf("%s: show's %+v, the gate's %+v", r.Case, cell.Comparison, g)
			}
		}
	}
	if checked < len(table.Rows)/2 {
		t.Errorf("compared the p-values of %d cases of %d", checked, len(table.Rows))
	}
}
