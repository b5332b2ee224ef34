package analysis

import (
	"fmt"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// The sequential rule of compare --budget: the session looks at the pairs of every case as the rounds come and
// stops when every case is clear; the verdicts are then the paired test's at the last look's alpha, so that the
// error rates hold however many looks were taken (stats.SequentialPaired, docs/gate.md).

// SequentialClear reports whether every case of every artifact after the first has a clear answer against the first
// at look k (a change of at least its minimum effect, or none that large), by the paired pairs of its processes. A
// case the options skip, and ref_js_loop, hold nothing up; a case one side lacks is judged after the session.
func SequentialClear(arts []*artifact.Artifact, k int, o Options) bool {
	if len(arts) < 2 {
		return false
	}
	for _, c := range arts[0].Cases {
		opt := o.Cases[c.Name]
		if c.Name == cases.RefCase || opt.Skip {
			continue
		}
		minEffect := o.MinEffect
		if opt.MinEffect > 0 {
			minEffect = opt.MinEffect
		}
		for _, a := range arts[1:] {
			other := a.Case(c.Name)
			if other == nil {
				continue
			}
			xs, ys := PairedValues(&c, other)
			if clarity, _, err := stats.SequentialPaired(xs, ys, k, o.Alpha, minEffect); err != nil || clarity == stats.Unclear {
				return false
			}
		}
	}
	return true
}

// SequentialOptions are o for the verdicts after a session of the sequential rule with this budget that took k
// looks: the alpha of the last look, and where the rule ended (Options.Sequential), so that a case still unclear
// there is Undecided (o itself when it took no look).
func SequentialOptions(o Options, k int, budget string) Options {
	if k > 0 {
		o.Sequential = &SequentialEnd{Look: k, Alpha: o.Alpha, Budget: budget}
		o.Alpha = stats.SequentialAlpha(o.Alpha, k)
	}
	return o
}

// TooFewRounds says, before a session of this many rounds is measured, that its paired test cannot reach o's alpha
// with so few, and how many would; "" when it can. sequential is compare's rule (--budget), whose rounds are a cap
// and whose first look comes after stats.SequentialNeeds of them.
func TooFewRounds(rounds int, sequential bool, o Options) string {
	o = o.WithDefaults()
	if sequential {
		if need := stats.SequentialNeeds(o.Alpha); rounds < need {
			return fmt.Sprintf("--runs %d caps the rounds below the %d the sequential rule needs to judge anything at "+
				"alpha %g: every case would be not judged; raise --runs to %d or more", rounds, need, o.Alpha, need)
		}
		return ""
	}
	if why := signTestTooSmall(rounds, o.Alpha); why != "" {
		return fmt.Sprintf("--runs %d: every case would be not judged: %s", rounds, why)
	}
	return ""
}

// TooFewProcesses says, before a run of this many processes is measured, that a gate of its artifact against one of
// as many processes cannot reach o's alpha (the U test), and how many would; "" when it can.
func TooFewProcesses(processes int, o Options) string {
	o = o.WithDefaults()
	if why := uTestTooSmall(processes, processes, o.Alpha); why != "" {
		return fmt.Sprintf("--runs %d: gate cannot judge this run against one like it: %s", processes, why)
	}
	return ""
}
