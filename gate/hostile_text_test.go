package gate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/internal/fakeart"
)

// TestRenderStripsControlCharacters: file names and notes with escape sequences that retitle and clear a terminal (and a pipe and a line
// break) reach the gate's text and markdown without their controls, and every markdown row keeps its cells.
func TestRenderStripsControlCharacters(t *testing.T) {
	const hostile = "\x1b]0;owned-title\x07\x1b[2J | next\nline"
	r, err := analysis.Judge(fakeart.Artifact(1, 0.02, fakeart.Base), fakeart.Artifact(2, 0.02, fakeart.Base), "b"+hostile+".json", "c.json",
		analysis.Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	r.Label += hostile
	r.Notes = append(r.Notes, analysis.Warning{Kind: analysis.Sides, Text: hostile})
	report := &Report{Results: []*analysis.Result{r}, Notes: []analysis.Warning{{Kind: analysis.Unmatched, Artifact: hostile, Text: hostile}}}
	for _, format := range []string{"text", "markdown"} {
		var out bytes.Buffer
		if err := Render(&out, report, format); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(out.String(), "\x1b\x07") || !strings.Contains(out.String(), "owned-title") {
			t.Errorf("%s: controls kept or text lost:\n%q", format, out.String())
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "line") {
				t.Errorf("%s: a line break from the input split a line", format)
			}
		}
	}
}
