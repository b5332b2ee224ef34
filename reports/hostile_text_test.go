package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// hostile is an OSC that retitles the terminal, ended by BEL, then a CSI that clears it; with
// a pipe and a line break that would break a markdown table.
const hostile = "\x1b]0;owned-title\x07\x1b[2J | next\nline"

// hostileArtifact is a real artifact whose strings a device or program could have set: the target, a failure and a
// warning.
func hostileArtifact(t *testing.T) *artifact.Artifact {
	a, err := artifact.Read("testdata/floor.json")
	if err != nil {
		t.Fatal(err)
	}
	a.Target = "evil" + hostile
	a.Failures = append(a.Failures, artifact.Failure{Name: "callback", Reason: hostile, StderrTail: hostile})
	a.Warnings = append(a.Warnings, hostile)
	a.Device.CPUModel = hostile
	return a
}

// TestShowStripsControlCharacters: show's text and markdown tables carry no control character from an artifact,
// and every markdown row keeps its cells.
func TestShowStripsControlCharacters(t *testing.T) {
	arts, files := []*artifact.Artifact{hostileArtifact(t)}, []string{"hostile.json"}
	for _, format := range []string{"text", "markdown", "csv"} {
		var out bytes.Buffer
		if err := Render(&out, build(arts, files), format); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		if strings.ContainsAny(text, "\x1b\x07") {
			t.Errorf("%s: a control character reached the output:\n%q", format, text)
		}
		if !strings.Contains(text, "owned-title") {
			t.Errorf("%s: the text around the controls is gone:\n%s", format, text)
		}
		if format != "markdown" {
			continue
		}
		var cells int
		for _, line := range strings.Split(text, "\n") {
			if !strings.HasPrefix(line, "|") {
				if strings.HasPrefix(line, "line") || strings.HasPrefix(line, " next") {
					t.Errorf("markdown: a line break from the artifact split a line: %q", line)
				}
				continue
			}
			n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
			if cells == 0 {
				cells = n
			}
			if n != cells {
				t.Errorf("markdown: row %q has %d cell borders, the header %d", line, n, cells)
			}
		}
		if !strings.Contains(text, `evil]0;owned-title[2J \| next line`) {
			t.Errorf("markdown: the label is not escaped as one cell:\n%s", text)
		}
	}
}
