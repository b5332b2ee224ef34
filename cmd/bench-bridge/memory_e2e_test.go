package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// memoryCases cross with and without host-side allocations: a scalar, an object, and a call from the host.
const memoryCases = "script_to_host_scalar,script_to_host_object,callback"

// measureMemory runs args (a program on this machine) over memoryCases in two processes and reads the artifact.
func measureMemory(t *testing.T, out string, args ...string) *artifact.Artifact {
	t.Helper()
	args = append(args, "--out", out, "--cases", memoryCases, "--runs", "2", "--samples", "3", "--min-time", "2ms", "--warmup", "1ms")
	stdout, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("bench-bridge %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return readArtifact(t, out)
}

// TestMemoryPerCrossing builds the floor and the json bridge against real QuickJS, and checks what their memory
// passes count: the floor's scalar crossing allocates nothing on the host and fewer bytes than json's, whose codec
// allocates on the host; both processes of one binary count the same; show, benchstat and the allocation gate read
// the counts; and the gate flags one allocation more per crossing (BB_EXTRA_ALLOC=1) while passing a rerun.
func TestMemoryPerCrossing(t *testing.T) {
	requireCC(t)
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	floor := measureMemory(t, file("floor.json"), "floor", localName())
	json := measureMemory(t, file("json.json"), localName())

	for _, a := range []*artifact.Artifact{floor, json} {
		for _, p := range a.Processes {
			if p.PeakRSSBytes <= 0 {
				t.Errorf("%s: process %d has no peak RSS", a.Label(), p.Seq)
			}
		}
		for _, c := range a.Cases {
			if c.Memory == nil || c.Memory.AllocsPerOp == nil || c.Memory.BytesPerOp == nil || c.Memory.HeapBytes == nil || len(c.Processes) != 2+added(a) {
				t.Fatalf("%s %s: memory %+v over %d processes", a.Label(), c.Name, c.Memory, len(c.Processes))
			}
			// The pass runs a fixed number of units in a fresh set-up with an allocator whose sizes depend on the
			// requests alone: whatever the clock and the case order did, the two processes count the same.
			if m0, m1 := c.Processes[0].Memory, c.Processes[1].Memory; !reflect.DeepEqual(m0, m1) {
				t.Errorf("%s %s: processes counted %+v and %+v", a.Label(), c.Name, *m0, *m1)
			}
		}
	}
	fs, js := floor.Case("script_to_host_scalar").Memory, json.Case("script_to_host_scalar").Memory
	if *fs.HostAllocsPerOp != 0 || !(*js.HostAllocsPerOp > 0) {
		t.Errorf("host allocations per op of script_to_host_scalar: floor %v, json %v; want 0 and some", *fs.HostAllocsPerOp, *js.HostAllocsPerOp)
	}
	if !(*fs.BytesPerOp < *js.BytesPerOp) {
		t.Errorf("bytes per op of script_to_host_scalar: floor %v, json %v; want the floor's fewer", *fs.BytesPerOp, *js.BytesPerOp)
	}

	stdout, _, code := run(t, "show", file("floor.json"), file("json.json"))
	if code != 0 || !strings.Contains(stdout, "allocs/op") || !strings.Contains(stdout, "bytes/op") {
		t.Errorf("show: exit %d, want allocs/op and bytes/op columns:\n%s", code, stdout)
	}
	stdout, _, code = run(t, "show", "--format", "benchstat", file("floor.json"), file("json.json"))
	if code != 0 || !strings.Contains(stdout, " B/op ") || !strings.Contains(stdout, " allocs/op\n") {
		t.Errorf("show --format benchstat: exit %d, want B/op and allocs/op units:\n%s", code, stdout)
	}

	// A/A: another run of the same floor counts the same allocations.
	measureMemory(t, file("floor-again.json"), "floor", localName())
	if stdout, stderr, code := run(t, "gate", "--metric", "allocations", file("floor.json"), file("floor-again.json")); code != 0 {
		t.Errorf("gate --metric allocations of two runs of one floor: exit %d\n%s%s", code, stdout, stderr)
	}
	// A/B: one host allocation more per crossing is flagged in every case.
	t.Setenv("BB_EXTRA_ALLOC", "1")
	extra := measureMemory(t, file("floor-extra.json"), "floor", localName())
	if got := *extra.Case("script_to_host_scalar").Memory.HostAllocsPerOp; got != 1 {
		t.Errorf("BB_EXTRA_ALLOC=1: %v host allocations per op of script_to_host_scalar, want 1", got)
	}
	stdout, stderr, code := run(t, "gate", "--metric", "allocations", file("floor.json"), file("floor-extra.json"))
	if code != exitRegressed {
		t.Fatalf("gate --metric allocations with one allocation more per crossing: exit %d, want %d\n%s%s", code, exitRegressed, stdout, stderr)
	}
	for _, name := range strings.Split(memoryCases, ",") {
		if !strings.Contains(stderr+stdout, name) {
			t.Errorf("gate did not name %s:\n%s%s", name, stdout, stderr)
		}
	}
}
