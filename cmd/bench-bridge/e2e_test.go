package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
)

// run executes the command line as a user would and returns stdout, stderr and the exit status.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := execute(args, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// TestEndToEnd builds QuickJS, the floor and the json bridge on this machine with a short budget, runs every case,
// and checks the artifacts and show's table.
func TestEndToEnd(t *testing.T) {
	requireCC(t)
	dir := t.TempDir()
	floorOut, bridgeOut := filepath.Join(dir, "floor.json"), filepath.Join(dir, "bridge.json")
	budget := []string{"--runs", "2", "--samples", "3", "--min-time", "2ms"}
	for _, args := range [][]string{
		append([]string{"floor", localName(), "--out", floorOut}, budget...),
		append([]string{localName(), "--out", bridgeOut}, budget...),
	} {
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("bench-bridge %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
		if !strings.Contains(stdout, "script_to_host_scalar") {
			t.Errorf("bench-bridge %s printed no table:\n%s", args[0], stdout)
		}
	}
	floor, bridge := readArtifact(t, floorOut), readArtifact(t, bridgeOut)
	for _, a := range []*artifact.Artifact{floor, bridge} {
		if !a.Complete || len(a.Failures) > 0 {
			t.Errorf("%s: complete=%v failures=%+v", a.Label(), a.Complete, a.Failures)
		}
		ref := a.Case(cases.RefCase)
		if ref == nil {
			t.Fatalf("%s: no %s", a.Label(), cases.RefCase)
		}
		for _, want := range cases.Catalogue {
			c := a.Case(want.Name)
			if c == nil {
				t.Errorf("%s: case %s missing", a.Label(), want.Name)
				continue
			}
			n := 2 + added(a) // --runs 2, and the process the run may add for the device's fastest state
			if len(c.Processes) != n || len(c.SamplesNs) != 3*n || c.Iterations < 1 || c.Crossing != want.Crossing {
				t.Errorf("%s %s: %d processes, %d samples, %d iterations, crossing %v", a.Label(), c.Name, len(c.Processes), len(c.SamplesNs), c.Iterations, c.Crossing)
			}
			if !(c.PILowNs <= c.MedianNs && c.MedianNs <= c.PIHighNs) {
				t.Errorf("%s %s: interval [%v, %v] does not contain the median %v", a.Label(), c.Name, c.PILowNs, c.PIHighNs, c.MedianNs)
			}
			// Each process's ratio is against the ref measured beside the case in that process; the case's is its
			// least sample over the least ref sample beside it (ref_js_loop's: its own, 1).
			least, leastRef := math.Inf(1), math.Inf(1)
			for _, p := range c.Processes {
				refs := p.RefSamplesNs
				if c.Name == cases.RefCase {
					refs = p.SamplesNs
				}
				least, leastRef = min(least, slices.Min(p.SamplesNs)), min(leastRef, slices.Min(refs))
			}
			if len(c.ProcessRatios()) != n || c.RatioToRef == nil || *c.RatioToRef != least/leastRef {
				t.Errorf("%s %s: ratio_to_ref %v, want the least sample over the least ref sample, %v", a.Label(), c.Name, c.RatioToRef, least/leastRef)
			}
			if p := c.Processes[0]; c.Name != cases.RefCase && (len(p.RefSamplesNs) != 3 || p.RefMedianNs <= 0) {
				t.Errorf("%s %s: %d ref samples beside the case, ref median %v", a.Label(), c.Name, len(p.RefSamplesNs), p.RefMedianNs)
			}
			if (c.CrossingsPerMs != nil) != c.Crossing {
				t.Errorf("%s %s: crossings_per_ms %v for crossing=%v", a.Label(), c.Name, c.CrossingsPerMs, c.Crossing)
			}
		}
		if a.Device.Compiler == "" || a.Device.QuickJS != "2025-04-26" || a.Device.Cores < 1 || a.TimerOverheadNs <= 0 {
			t.Errorf("%s: device %+v, timer overhead %v", a.Label(), a.Device, a.TimerOverheadNs)
		}
	}
	if bridge.Codec != "json" || floor.Kind != artifact.ProgramFloor {
		t.Errorf("bridge codec %q, floor program %q", bridge.Codec, floor.Kind)
	}
	// The generic JSON path must cost more per call than the direct C API: that is the whole finding.
	if f, b := floor.Case("script_to_host_scalar").MedianNs, bridge.Case("script_to_host_scalar").MedianNs; !(b > f) {
		t.Errorf("script_to_host_scalar: json bridge %vns is not slower than the floor %vns", b, f)
	}

	stdout, stderr, code := run(t, "show", "--format", "markdown", floorOut, bridgeOut)
	if code != 0 || !strings.Contains(stdout, "| `script_to_host_scalar` |") || !strings.Contains(stdout, "At 60 Hz, 1 ms of a frame buys") {
		t.Fatalf("show: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func readArtifact(t *testing.T, path string) *artifact.Artifact {
	t.Helper()
	a, err := artifact.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestShowRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema": 1, "target": "linux", "program": "bridge", "cases": [`), 0o644)
	foreign := filepath.Join(dir, "package.json")
	os.WriteFile(foreign, []byte(`{"name": "x"}`), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"show", bad}, bad + ": line 1, column"},
		{[]string{"show", foreign}, foreign + ": no \"schema\" key"},
		{[]string{"show", filepath.Join(dir, "missing.json")}, "missing.json: no such file"},
		{[]string{"show", "--format", "yaml", bad}, `--format "yaml"`},
		{[]string{"show"}, "requires at least 1 arg"},
		{[]string{localName(), "--cases", "nope"}, `unknown case "nope"`},
		{[]string{localName(), "--samples", "0"}, "--samples must be at least 1"},
		{[]string{"floor", "plan9"}, `unknown target "plan9"`},
	}
	for _, tt := range tests {
		_, stderr, code := run(t, tt.args...)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("bench-bridge %s: exit %d, stderr %q; want 1 and %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
	}
}

func TestCasesListsTheCatalogue(t *testing.T) {
	stdout, _, code := run(t, "cases")
	if code != 0 || strings.Count(stdout, "\n") != len(cases.Catalogue) || !strings.HasPrefix(strings.Join(strings.Fields(stdout), " "), "ref_js_loop no crossing one turn") {
		t.Fatalf("cases: exit %d\n%s", code, stdout)
	}
}
