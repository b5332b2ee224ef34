package reports

import (
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// TestShowNamesMarkedProcesses: show's notes name every marked process of an artifact, with its core and why.
func TestShowNamesMarkedProcesses(t *testing.T) {
	js, err := artifact.Read("testdata/json.json")
	if err != nil {
		t.Fatal(err)
	}
	core := 4
	p := &js.Processes[len(js.Processes)-1]
	p.CPU, p.Marks = &core, []string{"cpu 4's clock went from 2800 MHz at its start to 2200 MHz at its end"}
	notes := strings.Join(Build([]*artifact.Artifact{js}, []string{"json.json"}).Notes, "\n")
	if !strings.Contains(notes, "json linux: 1 of 1 processes did not run in the state the others ran in, and their "+
		"numbers are in the artifact's statistics (process 0 (cpu 4): cpu 4's clock went from 2800 MHz at its start "+
		"to 2200 MHz at its end); let the device cool down or quieten it, or measure again with --cooldown") {
		t.Errorf("notes:\n%s", notes)
	}
	p.Marks = nil
	if notes := strings.Join(Build([]*artifact.Artifact{js}, []string{"json.json"}).Notes, "\n"); strings.Contains(notes, "processes did not run") {
		t.Errorf("an artifact without marks gets a note:\n%s", notes)
	}
}
