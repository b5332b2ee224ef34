package analysis

import (
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/stats"
)

// TestSequentialClear: a large change is clear at the first look, a small one under much noise is not, and
// a case the config skips holds nothing up; the verdicts after k looks are at the k-th look's alpha.
func TestSequentialClear(t *testing.T) {
	o := Options{}.WithDefaults()
	a, b := sessionPair(1, 0.5, 0.02)
	if !SequentialClear([]*artifact.Artifact{a, b}, 1, o) {
		t.Error("50% slower with 2% noise over 12 pairs: not clear at the first look")
	}
	a, b = sessionPair(1, o.MinEffect/2, 0.5) // 50% noise: the interval holds both a change that counts and none
	if SequentialClear([]*artifact.Artifact{a, b}, 1, o) {
		t.Error("a change under 50% noise is clear at the first look")
	}
	skip := o
	skip.Cases = map[string]CaseOptions{"script_to_host_scalar": {Skip: true}}
	if !SequentialClear([]*artifact.Artifact{a, b}, 1, skip) {
		t.Error("a skipped case held the session")
	}
	if SequentialClear([]*artifact.Artifact{a}, 1, o) {
		t.Error("one program alone is clear")
	}
	for k := range 4 {
		want := o.Alpha
		if k > 0 {
			want = stats.SequentialAlpha(o.Alpha, k)
		}
		if got := SequentialOptions(o, k, "60 s").Alpha; got != want {
			t.Errorf("after %d looks: alpha %v, want %v", k, got, want)
		}
	}
}
