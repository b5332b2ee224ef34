package analysis

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
)

// sessionPair makes two artifacts of one session whose processes share a drift (the machine of that moment) and
// whose script_to_host_scalar differs by change, each process with noise (relative) of its own, over 12 pairs, one of
// which straddles a change of the machine's state: its b process runs 30% slow.
func sessionPair(seed uint64, change, noise float64) (*artifact.Artifact, *artifact.Artifact) {
	r := rand.New(rand.NewPCG(seed, 3))
	mk := func() *artifact.Artifact {
		return &artifact.Artifact{Schema: artifact.Schema, Target: "linux", Kind: artifact.ProgramBridge, Codec: "json",
			Complete: true, Session: artifact.Session{ID: "s"}}
	}
	a, b := mk(), mk()
	for _, name := range []string{cases.RefCase, "script_to_host_scalar"} {
		ca, cb := artifact.Case{Name: name}, artifact.Case{Name: name}
		for p := range 12 {
			drift := 1 + 0.2*r.Float64()
			va := 40 * drift * (1 + noise*(r.Float64()-0.5))
			vb := 40 * drift * (1 + noise*(r.Float64()-0.5))
			if name != cases.RefCase {
				va, vb = va*3, vb*3*(1+change)
				if p == 7 {
					vb *= 1.3
				}
			}
			ra, rb := va/(40*drift), vb/(40*drift)
			ca.Processes = append(ca.Processes, artifact.CaseProcess{Process: p, MedianNs: va, RatioToRef: &ra})
			cb.Processes = append(cb.Processes, artifact.CaseProcess{Process: p, MedianNs: vb, RatioToRef: &rb})
		}
		ra, rb := ca.ProcessRatios()[5], cb.ProcessRatios()[5]
		ca.RatioToRef, cb.RatioToRef = &ra, &rb
		a.Cases, b.Cases = append(a.Cases, ca), append(b.Cases, cb)
	}
	return a, b
}

func TestJudgePaired(t *testing.T) {
	o := Options{}.WithDefaults()
	for seed := range uint64(20) {
		a, b := sessionPair(seed, 0.10, 0.02)
		res, err := JudgePaired(a, b, "a.json", "b.json", o)
		if err != nil {
			t.Fatal(err)
		}
		if v := verdicts(res)["script_to_host_scalar"]; v != Regressed {
			t.Errorf("seed %d: 10%% slower with 2%% noise: %s (%+v)", seed, v, res.Cases)
		}
		a, b = sessionPair(seed, 0, 0.02)
		res, _ = JudgePaired(a, b, "a.json", "b.json", o)
		if v := verdicts(res)["script_to_host_scalar"]; v == Regressed {
			t.Errorf("seed %d: A/A flagged: %+v", seed, res.Cases)
		}
	}
	// A significant change below half the minimum effect is not a regression.
	a, b := sessionPair(1, 0.03, 0.005)
	res, _ := JudgePaired(a, b, "a.json", "b.json", o)
	if c := res.Cases[0]; c.Verdict != Same || *c.P > 0.05 {
		t.Errorf("3%% slower: %+v, want significant and same", c)
	}
	b.Session.ID = "other"
	if _, err := JudgePaired(a, b, "a.json", "b.json", o); err == nil || !strings.Contains(err.Error(), "not measured in one session") {
		t.Errorf("two sessions: err %v", err)
	}
}

// A confirming rerun keeps a regression only when it shows one by the gate's own rule (over the minimum effect), not
// by compare's half of it.
func TestConfirmPairedNeedsTheMinimumEffect(t *testing.T) {
	for _, tt := range []struct {
		change float64
		want   Verdict
	}{{0.07, Unconfirmed}, {0.25, Regressed}} {
		r := &Result{Cases: []CaseResult{{Case: "callback", Verdict: Regressed, Change: 0.3, Threshold: 0.10}}}
		paired := &Result{Cases: []CaseResult{{Case: "callback", Verdict: Regressed, Change: tt.change, Threshold: 0.10}}}
		ConfirmPaired(r, paired, "rerun.json")
		if got := r.Cases[0].Verdict; got != tt.want {
			t.Errorf("rerun change %+.2f: verdict %v, want %v", tt.change, got, tt.want)
		}
	}
}

// With 5 pairs a sign test cannot reach 0.05: the result says so, and judges nothing rather than calling every
// change the same.
func TestJudgePairedNamesTooFewPairs(t *testing.T) {
	a, b := sessionPair(1, 0.5, 0.01)
	for _, art := range []*artifact.Artifact{a, b} {
		for i := range art.Cases {
			art.Cases[i].Processes = art.Cases[i].Processes[:5]
		}
	}
	res, err := JudgePaired(a, b, "a.json", "b.json", Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Cases[0]; c.Verdict != Unjudged || len(res.Notes) != 1 || res.Notes[0].Kind != NotJudged || !strings.Contains(res.Notes[0].Text, "5 pairs: a sign test cannot reach alpha 0.05") {
		t.Errorf("5 pairs, 50%% slower: %+v, notes %v", c, res.Notes)
	}
	if res.Judged() || !strings.Contains(res.NotJudged, "raise --runs") {
		t.Errorf("judged %v, not judged %q: want nothing judged, and what would judge it", res.Judged(), res.NotJudged)
	}
}

// TestJudgePairedWithholdsAcrossEngines: two engines' floors measured in one session (compare floor floor:mujs) are
// paired, but their ×ref divide by two different reference loops: no verdict by time, one note saying why, the same
// in every view (the table's comparisons come from Compare); --across-origins judges them.
func TestJudgePairedWithholdsAcrossEngines(t *testing.T) {
	a, b := sessionPair(1, 0.5, 0.02)
	a.Kind, b.Kind = artifact.ProgramFloor, artifact.ProgramFloor
	a.Engine, b.Engine = artifact.Engine{Name: "quickjs", Version: "2025-04-26"}, artifact.Engine{Name: "mujs", Version: "1.3.6"}
	res, err := Compare(Loaded{File: "a.json", Artifact: a}, Loaded{File: "b.json", Artifact: b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := verdicts(res)["script_to_host_scalar"]; v != Unjudged || res.Method != Unjudgeable || res.Judged() ||
		!strings.Contains(res.NotJudged, "engines (quickjs 2025-04-26, mujs 1.3.6)") {
		t.Errorf("two engines in one session: %s, method %s, not judged %q", v, res.Method, res.NotJudged)
	}
	res, err = Compare(Loaded{File: "a.json", Artifact: a}, Loaded{File: "b.json", Artifact: b}, Options{AcrossOrigins: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := verdicts(res)["script_to_host_scalar"]; v != Regressed || res.Method != Paired {
		t.Errorf("two engines in one session, --across-origins: %s, method %s", v, res.Method)
	}
}
