package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/analysis"
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
					if doc, err = View(build(arts, files), nil, 80); err == nil {
						err = doc.Render(&buf, "text")
					}
				} else {
					err = Render(&buf, build(arts, files), format)
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

func TestRenderUnknownFormat(t *testing.T) {
	if err := Render(&bytes.Buffer{}, &analysis.Table{}, "yaml"); err == nil {
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

// Every format renders the same table, notes included: show --history's noise reaches json, html, csv and benchstat
// as it reaches text.
func TestEveryFormatHasTheNotes(t *testing.T) {
	files := []string{"testdata/json.json"}
	noise := func(*artifact.Artifact) *analysis.Noise {
		return &analysis.Noise{Device: "dev", Visible: map[string]float64{"callback": 0.2}}
	}
	table := analysis.Build(analysis.LoadedFrom(artsOf(t, files...), files), analysis.Options{}, noise)
	for _, format := range Formats {
		var buf bytes.Buffer
		if err := Render(&buf, table, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "history of dev: its nightly sees changes of 20.0% (callback)") {
			t.Errorf("%s: no noise note:\n%s", format, buf.String())
		}
	}
}

// TestRenderHTMLAlpha: the page names the alpha its table was compared at, not the default one.
func TestRenderHTMLAlpha(t *testing.T) {
	files := []string{"testdata/floor.json", "testdata/json.json"}
	arts := artsOf(t, files...)
	for _, alpha := range []float64{0.01, 0.2} {
		var buf bytes.Buffer
		if err := Render(&buf, analysis.Build(analysis.LoadedFrom(arts, files), analysis.Options{Alpha: alpha}, nil), "html"); err != nil {
			t.Fatal(err)
		}
		want := "significant at " + strconv.FormatFloat(alpha, 'g', -1, 64)
		if !strings.Contains(buf.String(), want) || strings.Contains(buf.String(), "significant at 0.05") {
			t.Errorf("alpha %v: the page does not say %q", alpha, want)
		}
	}
}
