package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestRenderGolden renders every format of two tables and compares with the golden files; on a mismatch it writes
// the output next to the golden file as .got. "show": testdata/floor.json beside testdata/json.json, the floor and
// the bridge on one device. "cross": testdata/json.json beside testdata/arm-emulated.json, another device under an
// emulator with 5 samples a case: one warning that names the difference, ×ref only and no p, "-" for every interval
// with one warning line for all of them, and the emulation marked next to the numbers. Each also as a terminal of 80
// columns shows it: the artifacts' labels over their columns, what did not fit left out and named, prose wrapped.
func TestRenderGolden(t *testing.T) {
	for name, files := range map[string][]string{
		"show":  {"testdata/floor.json", "testdata/json.json"},
		"cross": {"testdata/json.json", "testdata/arm-emulated.json"},
	} {
		arts := artsOf(t, files...)
		// "terminal": the text as show prints it to a terminal of 80 columns (Table.View).
		for _, format := range append(slices.Clone(Formats), "terminal") {
			t.Run(name+"/"+format, func(t *testing.T) {
				var buf bytes.Buffer
				var err error
				if format == "terminal" {
					var doc *Document
					if doc, err = Build(arts, files).View(nil, 80); err == nil {
						err = doc.Render(&buf, "text")
					}
				} else {
					err = Export(&buf, arts, files, format)
				}
				if err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", name+"."+format+".golden")
				if *update {
					os.WriteFile(golden, buf.Bytes(), 0o644)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), want) {
					os.WriteFile(golden+".got", buf.Bytes(), 0o644)
					t.Errorf("%s output differs from %s (see %s.got)", format, golden, golden)
				}
			})
		}
	}
}

func TestBuildComparesWithTheFirstArtifact(t *testing.T) {
	floor, _ := artifact.Read("testdata/floor.json")
	js, _ := artifact.Read("testdata/json.json")
	table := Build([]*artifact.Artifact{floor, js}, []string{"floor.json", "json.json"})
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
	// Fully separated samples of 10 and 10: the U test's two-sided p is 2/C(20,10), far below 0.05.
	if !c.Significant || *c.PValue > 0.001 || *c.VsFirst < 100 {
		t.Errorf("scalar json vs floor: %+v, want a significant ~158x", c)
	}
	if r := ref.Cells[1]; r.PValue != nil || r.Significant || *r.VsFirst != 1 {
		t.Errorf("ref_js_loop compared by ×ref: %+v, want 1x with no test (its ratio is 1 by definition)", r)
	}
	if *table.Frame[0] < 38000 || *table.Frame[1] > 250 {
		t.Errorf("frame crossings %v, %v", *table.Frame[0], *table.Frame[1])
	}
}

func TestRenderUnknownFormat(t *testing.T) {
	if err := Render(&bytes.Buffer{}, &Table{}, "yaml"); err == nil {
		t.Fatal("want an error for an unknown format")
	}
}

// Instruction counts, where an artifact has them, get a column of their own in text and markdown.
func TestRenderInstructions(t *testing.T) {
	table := testTable(t)
	n := 19048.0
	table.Rows[1].Cells[1].InstructionsPerOp = &n
	var buf bytes.Buffer
	if err := Render(&buf, table, "markdown"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "| per ms | instr/op |") || !strings.Contains(out, "| 19,048 |") {
		t.Errorf("no instructions column:\n%s", out)
	}
}
