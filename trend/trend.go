// Package trend reads a history's series: where each case's numbers changed, on which devices and at which commits,
// whether the code or one device caused it, and how much each device moves from night to night when nothing
// changed. Package analysis builds the history's model from its Report, which package dashboard renders; the
// statistics are package stats's.
package trend

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/history"
	"github.com/bench-bridge/bench-bridge/stats"
)

// Metrics, in the order a reader meets them.
const (
	Ratio        = "ratio"        // time: the case's ratio to ref_js_loop, with noise
	Instructions = "instructions" // instructions per op under callgrind: exact
	Allocations  = "allocations"  // allocations per op in the memory pass: exact
)

// Metrics are every metric the history is read by.
var Metrics = []string{Ratio, Instructions, Allocations}

// exact reports whether a metric repeats exactly when nothing changed.
func exact(metric string) bool { return metric != Ratio }

// Causes of a change.
const (
	CauseCode      = "code"      // every device that ran the commits shows it, or an exact count changed
	CauseDevice    = "device"    // one device of several that ran the commits shows it
	CauseSome      = "some"      // some of the devices that ran the commits show it
	CauseUndecided = "undecided" // one device ran the commits: a time change there may be the code or the device
)

// Options are the thresholds of the reading.
type Options struct {
	Thresholds stats.ChangePointThresholds
	// ExactTolerance is how far apart two counts of the same build may be and still be the same: callgrind's
	// counts of one binary repeat to within 0.02% (ref_js_loop's ES5 loop, about 206 instructions an op, moves by
	// up to 0.016%: docs/method.md), 20 times below the gate's 1%.
	ExactTolerance float64
	// MarkNew marks the changes that the newest night of their series made visible (Change.New): the reading is
	// done twice, with and without each series' newest night.
	MarkNew bool
}

// DefaultOptions are the history's.
var DefaultOptions = Options{Thresholds: stats.DefaultChangePointThresholds, ExactTolerance: 5e-4}

// Report is what a history says.
type Report struct {
	Devices []history.Device
	Nights  int
	Changes []Change
	Noise   []Noise
	Lines   []Line
}

// Change is one shift of one case and metric, on one or more devices at overlapping commit ranges.
type Change struct {
	Program, Case, Metric string
	// FirstNight is the first night of the new level (on most of the devices that show it).
	FirstNight string
	// From is the last commit measured before the change, To the first after: the change is in (From, To].
	From, To string
	// Shift is the relative size (after over before, less one; the median over the devices) and Low..High its
	// interval (the widest over the devices).
	Shift, Low, High float64
	// Before and After are the levels on each side, on the first device that shows it.
	Before, After float64
	// Devices show the change; Exposed ran the commits with enough nights after them to show it.
	Devices, Exposed []string
	Cause            string
	// Regression is true for a change the wrong way: slower, more instructions, more allocations.
	Regression bool
	// Open is true when no later change followed on any of its devices: the level it set is the current one.
	Open bool
	// New is true when the newest night of a series made it visible (Options.MarkNew).
	New bool
	// PerDevice are the devices' own views of it.
	PerDevice []DeviceChange
	// Ack, when someone acknowledged the change (history ack), says why it is known: it no longer alerts.
	Ack *history.Ack
}

// DeviceChange is a change as one device's series shows it.
type DeviceChange struct {
	Device     string
	FirstNight string
	From, To   string
	stats.ChangePoint
}

// Noise is how much one device's series of one case moves from night to night when nothing changed.
type Noise struct {
	Program, Device, Case string
	Nights                int
	// Level is the current level (the median of the nights since the last change).
	Level float64
	// Spread is the night-to-night noise, relative (stats.NightNoise), and Visible the least change the nightly
	// sees there (stats.SmallestVisible); NaN with too few nights.
	Spread, Visible float64
}

// Line is one device's series of one case and metric, for a chart.
type Line struct {
	Program, Device, Case, Metric string
	Points                        []Point
	// Changes are the indexes into Points where a new level starts.
	Changes []int
	// Spread is the series' noise (for the band around its levels).
	Spread float64
}

// Point is one night's value.
type Point struct {
	Night, Revision string
	Value           float64
}

// Analyze reads h.
func Analyze(h *history.History, o Options) *Report {
	r := analyze(h, o)
	if o.MarkNew {
		before := analyze(withoutNewest(h), o)
		for i := range r.Changes {
			r.Changes[i].New = !slices.ContainsFunc(before.Changes, r.Changes[i].same)
		}
	}
	for i := range r.Changes {
		c := &r.Changes[i]
		for _, a := range h.Acks {
			if a.Program == c.Program && a.Case == c.Case && a.Metric == c.Metric && a.To == c.To {
				c.Ack = &a
			}
		}
	}
	return r
}

// same reports whether two readings found the same change: the same case and metric at overlapping commits.
func (c *Change) same(d Change) bool {
	return c.Program == d.Program && c.Case == d.Case && c.Metric == d.Metric && c.To == d.To
}

// withoutNewest is h without each series' newest night.
func withoutNewest(h *history.History) *history.History {
	out := &history.History{}
	for _, s := range h.Series {
		if len(s.Nights) > 0 {
			s.Nights = s.Nights[:len(s.Nights)-1]
		}
		out.Series = append(out.Series, s)
	}
	return out
}

func analyze(h *history.History, o Options) *Report {
	r := &Report{}
	pos := commitOrder(h)
	for si := range h.Series {
		s := &h.Series[si]
		if !slices.ContainsFunc(r.Devices, func(d history.Device) bool { return d.Key == s.Device.Key }) {
			r.Devices = append(r.Devices, s.Device)
		}
		r.Nights += len(s.Nights)
		for _, name := range caseNames(s) {
			for _, m := range Metrics {
				if m == Ratio && name == cases.RefCase {
					continue // its ratio to itself is 1 every night
				}
				if line := lineOf(s, name, m); len(line.Points) > 0 {
					r.Lines = append(r.Lines, line)
				}
			}
		}
	}
	found := detect(r.Lines, o)
	var fs []foundChange
	for i := range r.Lines {
		line, cps := &r.Lines[i], found[i]
		values := line.values()
		if !exact(line.Metric) {
			line.Spread = stats.NightNoise(values, cps)
			r.Noise = append(r.Noise, noiseOf(*line, values, cps, o))
		}
		for _, c := range cps {
			line.Changes = append(line.Changes, c.Index)
			fs = append(fs, foundChange{line: i, cp: c, last: c.Index == cps[len(cps)-1].Index})
		}
	}
	r.Changes = group(r.Lines, fs, pos, o)
	return r
}

// detect finds the changes of every line, the lines shared out over the machine's cores: each line's result
// depends on that line alone (the permutations are seeded per segment), so the order they run in changes nothing.
func detect(lines []Line, o Options) [][]stats.ChangePoint {
	out := make([][]stats.ChangePoint, len(lines))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if exact(lines[i].Metric) {
					out[i] = stats.ExactChanges(lines[i].values(), o.ExactTolerance)
				} else {
					out[i] = stats.ChangePoints(lines[i].values(), o.Thresholds)
				}
			}
		}()
	}
	for i := range lines {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// values are the line's values, night after night.
func (l *Line) values() []float64 {
	out := make([]float64, len(l.Points))
	for i, p := range l.Points {
		out[i] = p.Value
	}
	return out
}

// foundChange is one change on one line.
type foundChange struct {
	line int
	cp   stats.ChangePoint
	last bool // no later change on the line
}

// commitOrder numbers the commits in the order the history first measured them, over every series.
func commitOrder(h *history.History) map[string]int {
	type first struct {
		night, rev string
	}
	var all []first
	for _, s := range h.Series {
		for _, n := range s.Nights {
			all = append(all, first{n.Night, n.Revision})
		}
	}
	slices.SortStableFunc(all, func(a, b first) int { return cmp.Compare(a.night, b.night) })
	pos := map[string]int{}
	for _, f := range all {
		if _, ok := pos[f.rev]; !ok {
			pos[f.rev] = len(pos)
		}
	}
	return pos
}

// caseNames are the cases any night of s measured, sorted.
func caseNames(s *history.Series) []string {
	var out []string
	for _, n := range s.Nights {
		for _, r := range n.Results {
			if !slices.Contains(out, r.Case) {
				out = append(out, r.Case)
			}
		}
	}
	slices.Sort(out)
	return out
}

// lineOf is the series of case name and metric m on s: the nights that measured it.
func lineOf(s *history.Series, name, m string) Line {
	l := Line{Program: s.Program, Device: s.Device.Key, Case: name, Metric: m, Spread: math.NaN()}
	for _, n := range s.Nights {
		res := n.Result(name)
		if res == nil {
			continue
		}
		v := map[string]float64{Ratio: res.Ratio, Instructions: res.Instructions, Allocations: res.Allocs}[m]
		if math.IsNaN(v) || (m == Ratio && !(v > 0)) {
			continue
		}
		l.Points = append(l.Points, Point{Night: n.Night, Revision: n.Revision, Value: v})
	}
	return l
}

// noiseOf is the noise of a time line.
func noiseOf(l Line, values []float64, cps []stats.ChangePoint, o Options) Noise {
	n := Noise{Program: l.Program, Device: l.Device, Case: l.Case, Nights: len(values), Spread: math.NaN(), Visible: math.NaN()}
	last := 0
	if len(cps) > 0 {
		last = cps[len(cps)-1].Index
	}
	n.Level = stats.Median(values[last:])
	if len(values)-last >= o.Thresholds.MinSegment {
		n.Spread = stats.NightNoise(values, cps)
		n.Visible = stats.SmallestVisible(n.Spread, o.Thresholds)
	}
	return n
}
