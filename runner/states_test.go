package runner

import (
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// stateRaw is a run whose processes ran ref_js_loop at refNs[i] per op (a little noise on each sample, as a device
// gives it) and a crossing case at 2.5 times that, the ref beside it at the same level.
func stateRaw(refNs []float64) *Raw {
	raw := &Raw{}
	for _, r := range refNs {
		ns := func(scale float64) []int64 {
			return []int64{int64(1000 * scale * r), int64(1010 * scale * r), int64(1020 * scale * r)}
		}
		ops := []int64{1000, 1000, 1000}
		raw.Processes = append(raw.Processes, RawProcess{Protocol: 2, Order: []string{"ref_js_loop", "script_to_host_scalar"},
			Cases: []RawCase{
				{Name: "ref_js_loop", Iterations: 1000, Ops: ops, Ns: ns(1)},
				{Name: "script_to_host_scalar", Iterations: 1000, Ops: ops, Ns: ns(2.5), RefOps: ops, RefNs: ns(1)},
			}})
	}
	return raw
}

// TestMedianIsTheFastestStates: a run whose processes ran at two speeds (the 23-25 ns and 37-38 ns) takes
// each case's median and interval over the processes of the faster, names the others with how much slower they ran,
// keeps every process, and reads back as written.
func TestMedianIsTheFastestStates(t *testing.T) {
	raw := stateRaw([]float64{37, 23, 24, 38, 25, 37.5, 23.5, 24.5})
	a := &artifact.Artifact{Schema: artifact.Schema, Target: "t", Kind: "bridge"}
	Assemble(a, raw, []string{"ref_js_loop", "script_to_host_scalar"})
	ref, call := a.Case("ref_js_loop"), a.Case("script_to_host_scalar")
	if len(ref.Processes) != 8 || len(a.Processes) != 8 {
		t.Fatalf("%d processes, want all 8 kept", len(ref.Processes))
	}
	// The fast processes' medians are 23.23 to 25.25; the median of the five is 24.24.
	if ref.MedianNs < 23 || ref.MedianNs > 25.3 || call.MedianNs < 2.5*23 || call.MedianNs > 2.5*25.3 {
		t.Errorf("medians %v and %v, want those of the fast processes", ref.MedianNs, call.MedianNs)
	}
	if call.PIHighNs/call.MedianNs > 1.15 {
		t.Errorf("interval %v..%v around %v: the slow processes widened it", call.PILowNs, call.PIHighNs, call.MedianNs)
	}
	for i, p := range a.Processes {
		slow := raw.Processes[i].Cases[0].Ns[0] > 30000
		if slow != (p.SlowerCases == 2) || slow && (p.Slower < 1.45 || p.Slower > 1.65) || !slow && p.Slower != 0 {
			t.Errorf("process %d: %d cases %vx slower", i, p.SlowerCases, p.Slower)
		}
	}
	if a.States == nil || a.States.RefNs < 23 || a.States.RefNs > 25.3 || a.States.BoundNs > 25.3 || a.States.Want != 6 || a.States.MaxAdded != 4 {
		t.Errorf("states %+v", a.States)
	}
	w := strings.Join(a.Warnings, "\n")
	if !strings.Contains(w, "3 of 8 processes ran cases in a slower state: process 0 (2 of 2 cases, 1.5") {
		t.Errorf("warnings %q, want the slower processes named", a.Warnings)
	}
	path := t.TempDir() + "/a.json"
	if err := artifact.Write(path, a); err != nil {
		t.Fatal(err)
	}
	back, err := artifact.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Case("script_to_host_scalar").MedianNs != call.MedianNs || back.States == nil || back.Processes[0].SlowerCases != 2 {
		t.Errorf("read back %+v", back.States)
	}

	// One state: nothing is slower, every process counts.
	one := &artifact.Artifact{}
	Assemble(one, stateRaw([]float64{23, 24, 25, 23.5, 24.5}), []string{"ref_js_loop", "script_to_host_scalar"})
	for i, p := range one.Processes {
		if p.SlowerCases != 0 || len(one.Case("ref_js_loop").StateProcesses()) != 5 {
			t.Errorf("one state: process %d %d cases slower", i, p.SlowerCases)
		}
	}
}

// TestRunMeasuresUntilEnoughShareTheFastestState: a run of 4 processes whose middle two ran slower measures more,
// one at a time, until 3 processes (two thirds) share the fastest state, and says why; a device that stays slow
// stops it at 2 more (half of 4), the bound the artifact states.
func TestRunMeasuresUntilEnoughShareTheFastestState(t *testing.T) {
	for _, tc := range []struct {
		name         string
		refNs        func(run int) int64
		procs, added int
	}{
		{"a slow spell", func(run int) int64 { return map[int]int64{1: 10000, 2: 10000}[run] + 20000 }, 5, 1},
		{"slow from the third process on", func(run int) int64 { return min(int64(run/2), 1)*10000 + 20000 }, 6, 2},
		{"one state", func(run int) int64 { return 20000 + int64(run%2)*200 }, 4, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &phoneTarget{refNs: tc.refNs, freq: steady}
			a, log, err := runPhone(t, p, 4, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Processes) != tc.procs || a.States == nil || a.States.Added != tc.added || a.States.MaxAdded != 2 ||
				a.States.Want != 3 || a.Settings.Runs != tc.procs || len(a.Session.Order) != tc.procs {
				t.Errorf("%d processes, states %+v, runs %d, order %v", len(a.Processes), a.States, a.Settings.Runs, a.Session.Order)
			}
			if tc.added > 0 && !strings.Contains(log, "have fewer than 3 processes in the device's fastest state: measuring process 4 (at most 2 more)") {
				t.Errorf("log:\n%s", log)
			}
			if ref := a.Case("ref_js_loop"); ref.MedianNs != 20 && tc.added > 0 {
				t.Errorf("ref_js_loop's median %v, want the fastest state's 20", ref.MedianNs)
			}
		})
	}
}
