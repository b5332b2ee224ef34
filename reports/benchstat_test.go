package reports

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// benchstatVersion is the golang.org/x/perf revision whose benchstat the test runs (go run fetches it through the
// module proxy once).
const benchstatVersion = "v0.0.0-20260908200009-22c9c6c9d4da"

// TestBenchstatReadsOurFormat runs the real benchstat on show --format benchstat and checks that it finds every case
// of every artifact with our medians.
func TestBenchstatReadsOurFormat(t *testing.T) {
	gobin := testenv.Require(t, "go", "install Go 1.26 or later")
	files := []string{"testdata/floor.json", "testdata/json.json"}
	arts := artsOf(t, files...)
	table := build(arts, files)
	var buf bytes.Buffer
	if err := Render(&buf, build(arts, files), "benchstat"); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "bench.txt")
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "run", "golang.org/x/perf/cmd/benchstat@"+benchstatVersion, "-format", "csv", "-col", "artifact", in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		testenv.Missing(t, "go run benchstat failed (it needs the Go module proxy once): "+err.Error()+"\n"+stderr.String())
	}
	// The csv opens with the shared configuration ("goos: linux"), then has one table per unit, sec/op first: a
	// title row with the artifacts, a row of units, then "Case/NAME,median,CI,median,CI,vs base,P" per case.
	r := csv.NewReader(bytes.NewReader(out))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("benchstat's csv: %v\n%s", err, out)
	}
	for len(recs) > 0 && (len(recs[0]) < 4 || recs[0][0] != "") {
		recs = recs[1:]
	}
	if len(recs) < 2 || recs[0][1] != table.Columns[0].Label || recs[0][3] != table.Columns[1].Label {
		t.Fatalf("benchstat did not put the artifacts side by side:\n%s", out)
	}
	medians := map[string][]string{}
	for _, rec := range recs[2:] {
		if len(rec) == 0 || rec[0] == "" || rec[0] == "geomean" {
			break
		}
		medians[strings.TrimPrefix(rec[0], "Case/")] = rec
	}
	if len(medians) != len(table.Rows) {
		t.Fatalf("benchstat found %d cases, the table has %d:\n%s", len(medians), len(table.Rows), out)
	}
	for _, row := range table.Rows {
		for i, cell := range row.Cells {
			rec := medians[row.Case]
			field := ""
			if 1+2*i < len(rec) {
				field = rec[1+2*i]
			}
			if cell.Missing {
				if field != "" {
					t.Errorf("%s, %s: not measured, yet benchstat shows %q", row.Case, table.Columns[i].Label, field)
				}
				continue
			}
			got, err := strconv.ParseFloat(field, 64)
			if err != nil {
				t.Fatalf("%s, %s: benchstat's median %q: %v\n%s", row.Case, table.Columns[i].Label, field, err, out)
			}
			if want := cell.MedianNs * 1e-9; math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s, %s: benchstat's median %v s/op, ours %v", row.Case, table.Columns[i].Label, got, want)
			}
		}
	}
}
