package analysis

import (
	"slices"
	"testing"

	"github.com/bench-bridge/bench-bridge/cases"
)

// TestOutcome decides a gate run from real judgements: one that regressed, one that judged nothing (no case in
// common), and one that passed, alone and together.
func TestOutcome(t *testing.T) {
	o := Options{}.WithDefaults()
	judge := func(label string, b, c map[string]float64) *Result {
		t.Helper()
		r, err := Judge(fake(t, 1, 0.02, b), fake(t, 2, 0.02, c), "b.json", "c.json", o)
		if err != nil {
			t.Fatal(err)
		}
		r.Label = label
		return r
	}
	regressed := judge("slow", base, scaled(base, map[string]float64{"callback": 1.5}))
	nothing := judge("apart", map[string]float64{cases.RefCase: 25, "callback": 1250},
		map[string]float64{cases.RefCase: 25, "script_to_host_scalar": 1250})
	passed := judge("same", base, base)
	tests := []struct {
		name    string
		results Results
		want    Outcome
		reg     []string
		un      []string
	}{
		{"passed", Results{Results: []*Result{passed}}, GatePassed, nil, nil},
		{"regressed", Results{Results: []*Result{passed, regressed}}, GateRegressed, []string{"slow: callback"}, nil},
		{"judged nothing", Results{Results: []*Result{passed, nothing}}, GateJudgedNothing, nil, []string{"apart"}},
		{"judged nothing, allowed", Results{Results: []*Result{nothing}, AllowUnjudged: true}, GatePassedUnjudged, nil, []string{"apart"}},
		// A regression outranks a comparison that judged nothing; the latter's missing cases are not regressions.
		{"both", Results{Results: []*Result{regressed, nothing}, AllowUnjudged: true}, GateRegressed, []string{"slow: callback"}, []string{"apart"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.results.Outcome()
			if got != tt.want || !slices.Equal(tt.results.Regressions(), tt.reg) || !slices.Equal(tt.results.Unjudged(), tt.un) {
				t.Errorf("%v (regressions %q, unjudged %q), want %v (%q, %q)", got, tt.results.Regressions(),
					tt.results.Unjudged(), tt.want, tt.reg, tt.un)
			}
			if fails := tt.want == GateRegressed || tt.want == GateJudgedNothing; got.Failed() != fails {
				t.Errorf("%v: Failed %v, want %v", got, got.Failed(), fails)
			}
		})
	}
}
