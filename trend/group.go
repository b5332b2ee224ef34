package trend

import (
	"cmp"
	"slices"

	"github.com/bench-bridge/bench-bridge/stats"
)

// member is one device's change with the commit range it lies in, as positions in the history's commit order: the
// change came with a commit in lo..hi.
type member struct {
	DeviceChange
	lo, hi int
	last   bool
}

// group joins the changes of one program, case and metric on different devices whose commit ranges overlap (time
// changes may sit a night apart on different devices: a busy night beside a step moves it by one), and says what
// caused each.
func group(lines []Line, fs []foundChange, pos map[string]int, o Options) []Change {
	byKey := map[[3]string][]member{}
	var keys [][3]string
	for _, f := range fs {
		l := lines[f.line]
		i := f.cp.Index
		m := member{DeviceChange: DeviceChange{Device: l.Device, FirstNight: l.Points[i].Night, From: l.Points[i-1].Revision,
			To: l.Points[i].Revision, ChangePoint: f.cp}, last: f.last}
		m.lo, m.hi = pos[m.From]+1, pos[m.To]
		k := [3]string{l.Program, l.Case, l.Metric}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], m)
	}
	var out []Change
	for _, k := range keys {
		ms := byKey[k]
		slices.SortStableFunc(ms, func(a, b member) int { return cmp.Compare(a.lo, b.lo) })
		slack := 1
		if exact(k[2]) {
			slack = 0
		}
		var cur []member
		flush := func() {
			if len(cur) > 0 {
				out = append(out, describe(k, cur, lines, pos, o))
			}
			cur = nil
		}
		for _, m := range ms {
			if len(cur) > 0 && (m.lo > maxHi(cur)+slack || slices.ContainsFunc(cur, func(c member) bool { return c.Device == m.Device })) {
				flush()
			}
			cur = append(cur, m)
		}
		flush()
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		return cmp.Or(cmp.Compare(b.FirstNight, a.FirstNight), cmp.Compare(a.Program, b.Program), cmp.Compare(a.Case, b.Case),
			cmp.Compare(slices.Index(Metrics, a.Metric), slices.Index(Metrics, b.Metric)))
	})
	return out
}

func maxHi(ms []member) int {
	hi := ms[0].hi
	for _, m := range ms {
		hi = max(hi, m.hi)
	}
	return hi
}

// describe makes one change of its members: where most of them put it, its size over them, which devices ran the
// commits, and so what caused it.
func describe(k [3]string, ms []member, lines []Line, pos map[string]int, o Options) Change {
	consensus := ms[0]
	votes := map[string]int{}
	for _, m := range ms {
		votes[m.To]++
		if votes[m.To] > votes[consensus.To] {
			consensus = m
		}
	}
	c := Change{Program: k[0], Case: k[1], Metric: k[2], FirstNight: consensus.FirstNight, From: consensus.From, To: consensus.To,
		Before: consensus.Before, After: consensus.After, Low: ms[0].Low, High: ms[0].High, Open: true}
	var shifts []float64
	lo, hi := ms[0].lo, ms[0].hi
	for _, m := range ms {
		c.Devices = append(c.Devices, m.Device)
		c.PerDevice = append(c.PerDevice, m.DeviceChange)
		shifts = append(shifts, m.Shift)
		c.Low, c.High = min(c.Low, m.Low), max(c.High, m.High)
		c.Open = c.Open && m.last
		lo, hi = min(lo, m.lo), max(hi, m.hi)
	}
	c.Shift = stats.Median(shifts)
	c.Regression = c.Shift > 0
	need := o.Thresholds.MinSegment
	if exact(k[2]) {
		need = 1
	}
	for _, l := range lines {
		if l.Program == k[0] && l.Case == k[1] && l.Metric == k[2] && !slices.Contains(c.Exposed, l.Device) && ranAcross(l, pos, lo, hi, need) {
			c.Exposed = append(c.Exposed, l.Device)
		}
	}
	for _, d := range c.Devices { // a device that shows it ran it, whatever its nights around it
		if !slices.Contains(c.Exposed, d) {
			c.Exposed = append(c.Exposed, d)
		}
	}
	slices.Sort(c.Devices)
	slices.Sort(c.Exposed)
	c.Cause = cause(len(c.Devices), len(c.Exposed), exact(k[2]))
	return c
}

// ranAcross reports whether line l measured a commit before lo and at least need nights at hi or later: enough to
// show a change that came with a commit in lo..hi.
func ranAcross(l Line, pos map[string]int, lo, hi, need int) bool {
	before, after := false, 0
	for _, p := range l.Points {
		switch at := pos[p.Revision]; {
		case at < lo:
			before = true
		case at >= hi:
			after++
		}
	}
	return before && after >= need
}

// cause says what caused a change that shown of exposed devices show. An exact count of a series, which holds the
// build fixed, changes only with the code; a time change on the one device that ran the commits is undecided.
func cause(shown, exposed int, exactMetric bool) string {
	switch {
	case shown == exposed && (exposed >= 2 || exactMetric):
		return CauseCode
	case exposed < 2:
		return CauseUndecided
	case shown == 1:
		return CauseDevice
	}
	return CauseSome
}
