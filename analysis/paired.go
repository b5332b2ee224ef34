package analysis

import (
	"fmt"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// JudgePaired gates cur against base when both were measured in one session (compare, gate --confirm): their
// processes alternated, so process i of one ran next to process i of the other and the pair shares the machine's
// state of that moment. Each case's change is the median over the process pairs of the ratio of their
// ratio_to_ref, with a sign test (stats.PairedRatio), and a case regresses when the test is significant at the
// alpha and the change is more than stats.PairedEffectShare of the minimum effect (stats.PairedThresholds).
func JudgePaired(base, cur *artifact.Artifact, baseFile, curFile string, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if base.Session.ID == "" || base.Session.ID != cur.Session.ID {
		return nil, fmt.Errorf("%s and %s were not measured in one session (session %q and %q): compare them with gate",
			baseFile, curFile, base.Session.ID, cur.Session.ID)
	}
	r := &Result{Label: cur.Label(), Baseline: baseFile, Current: curFile, Metric: Time, Alpha: o.Alpha,
		Threshold: o.MinEffect, Cases: []CaseResult{}, Guards: []GuardResult{}, Notes: []Warning{},
		Test: fmt.Sprintf("paired over the process pairs of session %s", cur.Session.ID), Method: Paired}
	if o.Sequential != nil {
		r.Budget = o.Sequential.Budget
	}
	for _, name := range order(base, cur) {
		if name == cases.RefCase {
			continue
		}
		r.Cases = append(r.Cases, pairedCase(base, cur, name, o))
	}
	why := ""
	// One session pairs the processes, but two engines' ×ref divide by two different reference loops (and an
	// interpreter's and a JIT's differ tenfold): as between origins in Judge, no verdict by time unless asked.
	if ds := artifact.BeyondPrograms(artifact.Differences(base, cur)); acrossOrigins(ds) && !o.AcrossOrigins {
		r.Method = Unjudgeable
		why = withhold(r, fmt.Sprintf("not judged by time: %s and %s come from %s, whose ×ref are not one measure "+
			"(each divides by its own ref_js_loop); read their ns/op side by side (docs/engines.md); gate "+
			"--across-origins judges anyway", baseFile, curFile, artifact.Describe(ds)))
	}
	if why == "" {
		why = tooSmallToJudge(r)
	}
	if why == "" {
		why = undecided(r, o)
	}
	r.Guards = checkGuards(cur, o.Guards)
	r.NotJudged = notJudged(r, why)
	return r, nil
}

// pairedCase compares one case over the processes both artifacts measured it in.
func pairedCase(base, cur *artifact.Artifact, name string, o Options) CaseResult {
	res, b, c, ok := measuredInBoth(base, cur, name, o)
	if !ok {
		return res
	}
	xs, ys := PairedValues(b, c)
	if b.RatioToRef != nil && c.RatioToRef != nil {
		res.Baseline, res.Current = *b.RatioToRef, *c.RatioToRef
	}
	p, err := stats.PairedRatio(xs, ys, stats.Level)
	if err != nil {
		res.Verdict, res.Note = Unjudged, err.Error()
		return res
	}
	res.Change, res.P = p.Ratio-1, &p.P
	res.Low, res.High = p.Low-1, p.High-1
	if why := signTestTooSmall(p.N, o.Alpha); why != "" {
		res.Verdict, res.Note = Unjudged, why
		return res
	}
	res.Verdict = verdict(stats.PairedThresholds(o.Alpha, res.Threshold).Tested(res.Change, p.P))
	if res.Verdict == Same && stats.Significant(p.P, o.Alpha) {
		res.UnderMinimum = true
		res.Note = fmt.Sprintf("%s, under half the %s minimum", signedPercent(res.Change), percent(res.Threshold))
	}
	if s := o.Sequential; s != nil && res.Verdict == Same {
		clarity, at, err := stats.SequentialPaired(xs, ys, s.Look, s.Alpha, res.Threshold)
		if err == nil && clarity == stats.Unclear {
			res.Verdict, res.UnderMinimum = Undecided, false
			res.Low, res.High = at.Low-1, at.High-1
			res.Note = fmt.Sprintf("could still be %s to %s: neither clearly beyond nor clearly within the %s minimum "+
				"when the rounds ended; a longer --budget or a larger --min-effect would tell", signedPercent(res.Low),
				signedPercent(res.High), percent(res.Threshold))
		}
	}
	return res
}

// signTestTooSmall says why a sign test over n pairs cannot judge anything at alpha, and how many rounds would; ""
// when it can.
func signTestTooSmall(n int, alpha float64) string {
	least := stats.LeastSignP(n)
	if stats.Significant(least, alpha) {
		return ""
	}
	need := stats.SignTestNeeds(alpha)
	return fmt.Sprintf("%d pairs: a sign test cannot reach alpha %.2g with so few (at best p=%.3f); %d rounds would "+
		"judge it (raise --runs to %d)", n, alpha, least, need, need)
}

// undecided is why r cannot pass when compare's sequential rule left cases undecided (Undecided), added to its
// notes: "" when none is.
func undecided(r *Result, o Options) string {
	var names []string
	for _, c := range r.Cases {
		if c.Verdict == Undecided {
			names = append(names, c.Case)
		}
	}
	if len(names) == 0 || o.Sequential == nil {
		return ""
	}
	why := fmt.Sprintf("could not tell within %s: %s", o.Sequential.Budget, strings.Join(names, ", "))
	r.Notes = append(r.Notes, Warning{Kind: NotJudged, Text: why})
	return why
}

// PairedValues returns the ratio_to_ref of the processes both cases have, matched by process index: compare
// numbers every program's processes by round, so index i of one program ran beside index i of the other.
func PairedValues(b, c *artifact.Case) (xs, ys []float64) {
	byProc := map[int]float64{}
	for _, p := range b.Processes {
		if p.RatioToRef != nil {
			byProc[p.Process] = *p.RatioToRef
		}
	}
	for _, p := range c.Processes {
		if x, ok := byProc[p.Process]; ok && p.RatioToRef != nil {
			xs, ys = append(xs, x), append(ys, *p.RatioToRef)
		}
	}
	return xs, ys
}

// ConfirmPaired keeps a regressed case of r regressed only when the paired rerun (JudgePaired of the baseline's
// program and the current one, run side by side, written to rerunFile) regresses it too.
func ConfirmPaired(r, paired *Result, rerunFile string) {
	r.Confirmation = rerunFile
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Verdict != Regressed {
			continue
		}
		for _, again := range paired.Cases {
			if again.Case == c.Case {
				again := again
				c.Rerun = &again
			}
		}
		// The rerun confirms by the gate's own rule, a significant change over the minimum effect, not by compare's
		// half of it: compare's rule finds a 10% change in one session, but it also flags one A/A rerun in five or so
		// on this kind of machine, and a gate that fails on a rerun's noise cries wolf.
		switch {
		case c.Rerun == nil:
			c.Verdict = Unconfirmed
		case c.Rerun.Verdict == Failed:
		case c.Rerun.Verdict != Regressed || stats.UnpairedThresholds(paired.Alpha, c.Rerun.Threshold).Beyond(c.Rerun.Change) != stats.Worse:
			c.Verdict = Unconfirmed
		}
	}
	for i := range r.Guards {
		g := &r.Guards[i]
		for _, again := range paired.Guards {
			if again.Case == g.Case && !g.OK {
				v := again.Ratio
				g.Rerun, g.OK = &v, again.OK
			}
		}
	}
}
