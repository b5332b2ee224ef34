package analysis

import (
	"strings"
	"testing"
)

// TestGateNamesMarkedProcesses: the gate's notes name the marked processes of the baseline and of the current run,
// each with its file.
func TestGateNamesMarkedProcesses(t *testing.T) {
	medians := map[string]float64{"ref_js_loop": 20, "script_to_host_scalar": 1000}
	base, cur := fake(t, 1, 0.02, medians), fake(t, 2, 0.02, medians)
	cur.Processes[3].Marks = []string{"ref_js_loop's least sample 26.0ns, 30.0% above the fastest process's (more than 10%)"}
	r, err := Judge(base, cur, "base.json", "cur.json", Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	notes := lines(r.Notes)
	if !strings.Contains(notes, "warning: cur.json: 1 of 10 processes did not run in the state the others ran in") ||
		!strings.Contains(notes, "(process 3: ref_js_loop's least sample 26.0ns, 30.0% above the fastest process's (more than 10%))") ||
		strings.Contains(notes, "base.json: 1 of") {
		t.Errorf("notes:\n%s", notes)
	}
}
