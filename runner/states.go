package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// The device's fastest state over a run: every case of every process has a level of ref_js_loop beside it (the
// median of the ref samples taken before its samples), and stats.FastestState decides from those levels which ran
// at the device's full speed. A case's median_ns and its interval are taken over the processes that ran it in that
// state; the others are named with how much slower they ran. A run of one program measures more processes, up to a
// bound, until every case has enough processes in it (docs/devstate.md).

// wantInState is how many processes every case of a run of runs processes is to have in the fastest state: two
// thirds of them.
func wantInState(runs int) int { return (2*runs + 2) / 3 }

// maxAdded is how many processes a run of runs processes adds at most to reach wantInState: half as many again,
// which bounds the run at 1.5 times its time.
func maxAdded(runs int) int { return runs / 2 }

// level is ref_js_loop's level beside a case in a process: its own median for ref_js_loop, else the median of the
// ref samples beside the case; 0 when it has none.
func level(name string, p artifact.CaseProcess) float64 {
	if name == cases.RefCase {
		return p.MedianNs
	}
	return p.RefMedianNs
}

// fastestState is the fastest state over the levels of cs's every case and process.
func fastestState(cs []*artifact.Case) stats.State {
	var levels []float64
	for _, c := range cs {
		for _, p := range c.Processes {
			levels = append(levels, level(c.Name, p))
		}
	}
	return stats.FastestState(levels, stats.DefaultStates)
}

// applyStates marks every case of a that a process ran in a slower state than the fastest (its slower), and every
// such process with how many cases it ran slower and how much slower; it records the state in a.States and names the
// slower processes in one warning. added is how many processes the run added for the state (Session.fill).
func applyStates(a *artifact.Artifact, cs []*artifact.Case, added int) {
	st := fastestState(cs)
	if st.N == 0 {
		return
	}
	slower := make([][]float64, len(a.Processes))
	for _, c := range cs {
		for j := range c.Processes {
			p := &c.Processes[j]
			if l := level(c.Name, *p); l > 0 && !st.In(l) {
				p.Slower = st.Slower(l)
				slower[p.Process] = append(slower[p.Process], p.Slower)
			}
		}
	}
	var named []string
	for i, s := range slower {
		if len(s) == 0 {
			continue
		}
		p := &a.Processes[i]
		p.SlowerCases, p.Slower = len(s), stats.Median(s)
		named = append(named, fmt.Sprintf("process %d (%d of %d cases, %.2fx slower)", i, len(s), len(p.CaseOrder), p.Slower))
	}
	asked := len(a.Processes) - added
	a.States = &artifact.States{RefNs: st.Center, BoundNs: st.Bound, Want: wantInState(asked), Added: added, MaxAdded: maxAdded(asked)}
	if len(named) == 0 {
		return
	}
	var few []string
	for _, c := range cs {
		if n := len(c.Processes) - countSlower(c); n < len(c.Processes) && n < 2 {
			few = append(few, c.Name)
		}
	}
	w := fmt.Sprintf("ns/op and its interval are over the processes that ran each case in the device's fastest state "+
		"(%s at %s, up to %s beside each case); %d of %d processes ran cases in a slower state: %s", cases.RefCase,
		artifact.FormatNs(st.Center), artifact.FormatNs(st.Bound), len(named), len(a.Processes), firstFive(named))
	if len(few) > 0 {
		w += fmt.Sprintf("; %d of %d cases had fewer than 2 processes in it and are over every process (%s)", len(few),
			len(cs), firstFive(few))
	}
	a.Warnings = append(a.Warnings, w)
}

// firstFive joins the first five of names, and says how many more there are.
func firstFive(names []string) string {
	out := strings.Join(names[:min(len(names), 5)], ", ")
	if more := len(names) - 5; more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

// countSlower counts the processes that ran c in a slower state.
func countSlower(c *artifact.Case) int {
	n := 0
	for _, p := range c.Processes {
		if p.Slower > 0 {
			n++
		}
	}
	return n
}

// shortOfState counts the cases of raw with fewer than want processes in the fastest state.
func shortOfState(raw *Raw, want int) int {
	_, byName := caseProcesses(raw)
	cs := make([]*artifact.Case, 0, len(byName))
	for _, c := range byName {
		cs = append(cs, c)
	}
	st := fastestState(cs)
	short := 0
	for _, c := range cs {
		in := 0
		for _, p := range c.Processes {
			if st.In(level(c.Name, p)) {
				in++
			}
		}
		if in < want {
			short++
		}
	}
	return short
}

// fill measures more processes of a session of one program, each in a case order of its own, until every case has
// wantInState processes in the device's fastest state or maxAdded processes were added. It returns how many it added.
// A compare's programs are paired process by process and are not filled; nor are instruction counts, which have no
// state.
func (s *Session) fill(ctx context.Context, preps []*prepared) (int, error) {
	o := preps[0].job.Options
	if len(preps) != 1 || o.Instructions {
		return 0, nil
	}
	m, want := preps[0].m, wantInState(o.Runs)
	added := 0
	for ; added < maxAdded(o.Runs); added++ {
		short := shortOfState(m.Raw, want)
		if short == 0 {
			break
		}
		seq := o.Runs + added
		fmt.Fprintf(s.log, "%s: %d cases of %s have fewer than %d processes in the device's fastest state: measuring process %d "+
			"(at most %d more)\n", s.target.Name(), short, preps[0].art.Label(), want, seq, maxAdded(o.Runs)-added)
		m.total += len(o.Cases)
		if err := m.Process(ctx, seq, CaseOrder(s.seed, seq, o.Cases)); err != nil {
			return added + 1, err
		}
	}
	return added, nil
}
