package reports

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
)

func testTable(t *testing.T) *analysis.Table {
	t.Helper()
	return tableOf(t, "testdata/floor.json", "testdata/json.json")
}

// tableOf builds the table of the artifacts in files.
func tableOf(t *testing.T, files ...string) *analysis.Table {
	t.Helper()
	return build(artsOf(t, files...), files)
}

// artsOf reads the artifacts in files.
func artsOf(t *testing.T, files ...string) []*artifact.Artifact {
	t.Helper()
	var arts []*artifact.Artifact
	for _, f := range files {
		a, err := artifact.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		arts = append(arts, a)
	}
	return arts
}

func TestChart(t *testing.T) {
	table := testTable(t)
	svg, err := Chart(table, "svg")
	if err != nil {
		t.Fatal(err)
	}
	// Every crossing case is on the axis, both artifacts in the legend, each bar labelled with its value.
	for _, want := range []string{"script_to_host_scalar", "callback", "floor linux", "json linux", "log scale",
		compact(*table.Frame[0]), compact(*table.Frame[1])} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the svg lacks %q", want)
		}
	}
	if strings.Contains(string(svg), ">ref_js_loop<") {
		t.Error("ref_js_loop crosses nothing and has no place in a chart of crossings")
	}
	data, err := Chart(table, "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a png: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() < 200 {
		t.Errorf("png of %v", b)
	}
}

func TestChartWithoutCrossings(t *testing.T) {
	table := testTable(t)
	for i := range table.Rows {
		for j := range table.Rows[i].Cells {
			table.Rows[i].Cells[j].CrossingsPerMs = nil
		}
	}
	if _, err := Chart(table, "svg"); err == nil || !strings.Contains(err.Error(), "nothing to chart") {
		t.Errorf("err %v", err)
	}
}

func TestCompact(t *testing.T) {
	for v, want := range map[float64]string{23249: "23.2k", 798.4: "798", 1.91: "1.91", 0.122: "0.122", 1.2e6: "1.20M", 999.7: "1.00k"} {
		if got := compact(v); got != want {
			t.Errorf("compact(%v) = %q, want %q", v, got, want)
		}
	}
}

// build is analysis.Build of the artifacts read from files, with the default thresholds.
func build(arts []*artifact.Artifact, files []string) *analysis.Table {
	return analysis.Build(analysis.LoadedFrom(arts, files), analysis.Options{}, nil)
}

// A chart of many artifacts is as wide as one of two, 1280 pixels, and grows down instead; each artifact has a
// colour of its own and a place in the legend.
func TestChartOfManyArtifactsFitsTheScreen(t *testing.T) {
	var files []string
	for range 11 {
		files = append(files, "testdata/floor.json", "testdata/json.json")
	}
	many, two := tableOf(t, files...), testTable(t)
	for i := range many.Columns {
		many.Columns[i].Label = fmt.Sprintf("artifact %d", i)
	}
	sizes := map[string]image.Rectangle{}
	for name, table := range map[string]*analysis.Table{"many": many, "two": two} {
		data, err := Chart(table, "png")
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		sizes[name] = img.Bounds()
	}
	if sizes["many"].Dx() != 1280 || sizes["two"].Dx() != 1280 || sizes["many"].Dy() <= 2*sizes["two"].Dy() {
		t.Errorf("22 artifacts drew %v, 2 drew %v: want both 1280 pixels wide, the first taller", sizes["many"], sizes["two"])
	}
	svg, err := Chart(many, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for i := range many.Columns {
		if !strings.Contains(string(svg), fmt.Sprintf(">artifact %d<", i)) {
			t.Errorf("the legend lacks artifact %d", i)
		}
	}
	seen := map[color.Color]bool{}
	for i := range many.Columns[:14] {
		seen[barColor(i)] = true
	}
	if len(seen) != 14 {
		t.Errorf("fourteen artifacts share colours: %d of them", len(seen))
	}
}
