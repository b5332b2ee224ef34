package reports

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// withCounts gives every case of arts instruction and memory counts, so that the table has every column it can have.
func withCounts(arts []*artifact.Artifact) {
	for _, a := range arts {
		for i := range a.Cases {
			n, allocs, bytes := 19048.0, 27.0, 1026.0
			a.Cases[i].InstructionsPerOp = &n
			a.Cases[i].Memory = &artifact.Memory{AllocsPerOp: &allocs, BytesPerOp: &bytes}
		}
	}
}

// On a terminal the table fits its width: the columns that do not fit are left out, the memory counts first, and
// one line names them; the case, ns/op, ×ref and the comparison always stay. Prose wraps at the width too.
func TestViewFitsItsWidth(t *testing.T) {
	files := []string{"testdata/floor.json", "testdata/json.json"}
	arts := artsOf(t, files...)
	withCounts(arts)
	table := build(arts, files)
	var full bytes.Buffer
	if err := Render(&full, table, "text"); err != nil {
		t.Fatal(err)
	}
	wide := widest(full.String())
	for _, width := range []int{80, 100, 120, 160, wide} {
		var out bytes.Buffer
		doc, err := View(table, nil, width)
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.Render(&out, "text"); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		if got := widest(text); got > width {
			t.Errorf("width %d: a line of %d columns:\n%s", width, got, text)
		}
		lines := strings.Split(text, "\n")
		header := lines[1] // under the line of the artifacts' labels
		if !strings.Contains(lines[0], "floor linux") || !strings.Contains(lines[0], "json linux") {
			t.Errorf("width %d: no line naming the artifacts over their columns:\n%s", width, text)
		}
		for _, always := range []string{"case", "ns/op", "×ref", "vs first"} {
			if !strings.Contains(header, always) {
				t.Errorf("width %d: %q left out of %q", width, always, header)
			}
		}
		var left []string
		for _, name := range []string{"bytes/op", "allocs/op", "instr/op", "per ms", "95% PI"} {
			if !strings.Contains(header, name) {
				left = append(left, name)
			}
		}
		switch note := "left out to fit"; {
		case len(left) == 0 && strings.Contains(text, note):
			t.Errorf("width %d: nothing left out, yet:\n%s", width, text)
		case len(left) > 0 && !strings.Contains(text, note+" "):
			t.Errorf("width %d: %v left out without a word:\n%s", width, left, text)
		case len(left) > 0 && left[0] != "bytes/op":
			t.Errorf("width %d: left out %v, want the memory counts to go first", width, left)
		}
		for _, name := range left {
			if !strings.Contains(text[strings.Index(text, "left out"):], name) {
				t.Errorf("width %d: %s left out and not named:\n%s", width, name, text)
			}
		}
		if width == wide && len(left) > 0 {
			t.Errorf("as wide as the full table, still left out %v", left)
		}
	}
}

// Everything a terminal leaves out is in the exports: csv carries the counts the text table shows.
func TestCSVHasEveryColumn(t *testing.T) {
	files := []string{"testdata/floor.json", "testdata/json.json"}
	arts := artsOf(t, files...)
	withCounts(arts)
	var out bytes.Buffer
	if err := Render(&out, build(arts, files), "csv"); err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(&out)
	r.Comment = '#' // the notes, after the records
	records, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := records[0]
	for _, col := range []string{"median_ns", "pi_low_ns", "ratio_to_ref", "crossings_per_ms", "vs_first", "p_value",
		"instructions_per_op", "allocs_per_op", "bytes_per_op"} {
		i := slices.Index(header, col)
		if i < 0 {
			t.Errorf("csv has no %s column: %v", col, header)
			continue
		}
		if records[1][i] == "" && col != "vs_first" && col != "p_value" && col != "crossings_per_ms" {
			t.Errorf("csv %s of %s is empty: %v", col, records[1][0], records[1])
		}
	}
}

// The full text, where nothing is fitted, has no line of group labels and no note.
func TestFullTextIsNotFitted(t *testing.T) {
	var out bytes.Buffer
	if err := Render(&out, testTable(t), "text"); err != nil {
		t.Fatal(err)
	}
	if text := out.String(); !strings.HasPrefix(text, "case ") || strings.Contains(text, "left out") || strings.Contains(text, "─") {
		t.Errorf("full text fitted:\n%s", text)
	}
}

func widest(text string) int {
	w := 0
	for _, l := range strings.Split(text, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// View keeps the columns asked for, in every artifact, and refuses a column it does not know.
func TestViewKeepsTheColumnsAsked(t *testing.T) {
	files := []string{"testdata/floor.json", "testdata/json.json"}
	arts := artsOf(t, files...)
	withCounts(arts)
	doc, err := View(build(arts, files), []string{"ns", "instructions", "vs"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := doc.Render(&out, "markdown"); err != nil {
		t.Fatal(err)
	}
	header := strings.SplitN(out.String(), "\n", 2)[0]
	want := "| case | floor linux ns/op | instr/op | json linux ns/op | instr/op | ×ref vs floor linux |"
	if only, err := View(build(arts, files), []string{"instructions"}, 0); err != nil {
		t.Fatal(err)
	} else {
		var b bytes.Buffer
		only.Render(&b, "markdown")
		if got, want := strings.SplitN(b.String(), "\n", 2)[0], "| case | floor linux instr/op | json linux instr/op |"; got != want {
			t.Errorf("without ns/op the artifacts go unnamed: %q, want %q", got, want)
		}
	}
	if header != want {
		t.Errorf("header %q, want %q", header, want)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| `") && strings.Count(line, "|") != strings.Count(want, "|") {
			t.Errorf("a row of another width than its header: %q", line)
		}
	}
	if strings.Contains(out.String(), "At 60 Hz") {
		t.Errorf("the line of crossings per ms without its column:\n%s", out.String())
	}
	if _, err := View(build(arts, files), []string{"median"}, 0); err == nil || !strings.Contains(err.Error(), "ns, interval") {
		t.Errorf("an unknown column: %v, want an error listing the columns", err)
	}
}

// ns-interval puts each artifact's ns/op and its interval in one cell, with the notes of the two columns apart.
func TestViewJoinsNsAndItsInterval(t *testing.T) {
	files := []string{"testdata/floor.json", "testdata/json.json"}
	table := tableOf(t, files...)
	doc, err := View(table, []string{"ns-interval", "ref"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := doc.Render(&out, "markdown"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	want := "| case | floor linux ns/op, 95% interval | ×ref | json linux ns/op, 95% interval | ×ref |"
	if lines[0] != want {
		t.Errorf("header %q, want %q", lines[0], want)
	}
	row := table.Rows[1]
	cell := artifact.FormatNs(row.Cells[0].MedianNs) + " " + interval(row.Cells[0])
	if !strings.HasPrefix(interval(row.Cells[0]), "±") || !strings.HasPrefix(lines[3], "| `"+row.Case+"` | "+cell+" | ") {
		t.Errorf("row of %s: %q, want its first cell %q", row.Case, lines[3], cell)
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "| `") && strings.Count(line, "|") != strings.Count(want, "|") {
			t.Errorf("a row of another width than its header: %q", line)
		}
	}
	apart, err := View(table, []string{"ns", "interval", "ref"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Sections[0].Footer, apart.Sections[0].Footer; !slices.Equal(got, want) {
		t.Errorf("notes %q, want those of ns and interval apart, %q", got, want)
	}
}
