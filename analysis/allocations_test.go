package analysis

import (
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
)

// withAllocations gives a's cases the allocations per op of counts.
func withAllocations(a *artifact.Artifact, counts map[string]float64) *artifact.Artifact {
	for i := range a.Cases {
		if v, ok := counts[a.Cases[i].Name]; ok {
			a.Cases[i].Memory = &artifact.Memory{AllocsPerOp: &v}
		}
	}
	return a
}

func TestJudgeAllocations(t *testing.T) {
	counts := map[string]float64{cases.RefCase: 0, "script_to_host_scalar": 0, "callback": 21.6875, "script_to_host_object": 92}
	b := withAllocations(fake(t, 1, 0.02, base), counts)
	// Times that say nothing (noise 50%) do not matter: the counts decide. One allocation more per op where there were
	// none, one in 64 ops more, one fewer.
	c := withAllocations(fake(t, 2, 0.5, base), map[string]float64{cases.RefCase: 0, "script_to_host_scalar": 1,
		"callback": 21.703125, "script_to_host_object": 91})
	r, err := Judge(b, c, "b.json", "c.json", Options{Metric: Allocations}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts(r)
	if got["script_to_host_scalar"] != Regressed || got["callback"] != Regressed || got["script_to_host_object"] != Improved {
		t.Fatalf("verdicts %v: want any growth regressed at the default threshold 0, a drop improved", got)
	}
	if r.Cases[0].P != nil || r.Cases[0].Change != 1 {
		t.Errorf("allocations: p %v, change %v; want no test and the change in allocations per op", r.Cases[0].P, r.Cases[0].Change)
	}
	// A threshold, global or per case, lets small growth through.
	o := Options{Metric: Allocations, AllocationsThreshold: 0.5,
		Cases: map[string]CaseOptions{"script_to_host_scalar": {AllocationsThreshold: 2}}}.WithDefaults()
	r, err = Judge(b, c, "b.json", "c.json", o)
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(r); got["script_to_host_scalar"] != Same || got["callback"] != Same || got["script_to_host_object"] != Improved {
		t.Fatalf("verdicts with thresholds %v", got)
	}

	delete(counts, "callback")
	r, _ = Judge(withAllocations(fake(t, 1, 0.02, base), counts), c, "b.json", "c.json", Options{Metric: Allocations}.WithDefaults())
	if got := verdicts(r); got["callback"] != Missing {
		t.Errorf("callback without a baseline count: %v, want missing", got["callback"])
	}
	if _, err := Judge(fake(t, 1, 0.02, base), c, "b.json", "c.json", Options{Metric: Allocations}.WithDefaults()); err == nil ||
		!strings.Contains(err.Error(), "b.json: no allocation counts") {
		t.Errorf("baseline without counts: err %v", err)
	}
	if _, err := Judge(b, c, "b.json", "c.json", Options{Metric: Allocations, Alpha: 0.05, MinEffect: 0.1, AllocationsThreshold: -1}); err == nil ||
		!strings.Contains(err.Error(), "allocations threshold -1") {
		t.Errorf("negative threshold: err %v", err)
	}
}
