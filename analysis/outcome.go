package analysis

// Results are the comparisons of one gate run (gate, compare --gate), and what they decide together: which
// regressions fail it, which comparisons judged nothing, and so its Outcome.
type Results struct {
	Results []*Result
	// AllowUnjudged lets a comparison that judged nothing pass (--allow-unjudged); by default it fails the gate.
	AllowUnjudged bool
}

// Outcome is how a gate run ends, decided by Results.Outcome.
type Outcome int

// Outcomes of a gate run. A regression outranks a case left undecided, which outranks a comparison that judged
// nothing: a run with all three regressed.
const (
	// GatePassed: every comparison judged something and nothing regressed.
	GatePassed Outcome = iota
	// GateRegressed: a comparison that judged something has a regression (Results.Regressions); it fails.
	GateRegressed
	// GateJudgedNothing: nothing regressed, but a comparison judged nothing (Results.Unjudged) and that is not
	// allowed: it guarded nothing, so it fails.
	GateJudgedNothing
	// GatePassedUnjudged: nothing regressed, and a comparison judged nothing, which AllowUnjudged lets pass.
	GatePassedUnjudged
	// GateUndecided: nothing regressed, but compare's sequential rule left a case undecided when its rounds ended
	// (Results.Undecided): it could still be a regression, so it fails, whatever AllowUnjudged says.
	GateUndecided
)

// Failed reports whether the outcome fails the gate: GateRegressed or GateJudgedNothing.
func (o Outcome) Failed() bool {
	return o == GateRegressed || o == GateJudgedNothing || o == GateUndecided
}

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case GatePassed:
		return "passed"
	case GateRegressed:
		return "regressed"
	case GateJudgedNothing:
		return "judged nothing"
	case GatePassedUnjudged:
		return "passed, judging nothing (allowed)"
	case GateUndecided:
		return "undecided"
	}
	return "unknown outcome"
}

// Regressions lists what fails the gate in the comparisons that judged something, as "label: case".
func (rs Results) Regressions() []string {
	var out []string
	for _, res := range rs.Results {
		if !res.Judged() {
			continue // its missing cases are why it judged nothing (Unjudged), not regressions
		}
		for _, c := range res.Regressions() {
			out = append(out, res.Label+": "+c)
		}
	}
	return out
}

// Unjudged lists the labels of the comparisons that judged nothing (Result.NotJudged says why): a gate of them
// guarded nothing.
func (rs Results) Unjudged() []string {
	var out []string
	for _, res := range rs.Results {
		if !res.Judged() {
			out = append(out, res.Label)
		}
	}
	return out
}

// Undecided lists the cases compare's sequential rule left undecided, as "label: case": a gate of them could not
// tell whether they got slower.
func (rs Results) Undecided() []string {
	var out []string
	for _, res := range rs.Results {
		for _, c := range res.Cases {
			if c.Verdict == Undecided {
				out = append(out, res.Label+": "+c.Case)
			}
		}
	}
	return out
}

// Outcome decides how the gate run ends: regressed when a comparison that judged something regressed, else
// undecided when a case was left undecided, else judged nothing when a comparison judged nothing (passed when
// AllowUnjudged allows it), else passed.
func (rs Results) Outcome() Outcome {
	switch unjudged := len(rs.Unjudged()) > 0; {
	case len(rs.Regressions()) > 0:
		return GateRegressed
	case len(rs.Undecided()) > 0:
		return GateUndecided
	case unjudged && rs.AllowUnjudged:
		return GatePassedUnjudged
	case unjudged:
		return GateJudgedNothing
	}
	return GatePassed
}
