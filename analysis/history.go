package analysis

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/history"
	"github.com/bench-bridge/bench-bridge/stats"
	"github.com/bench-bridge/bench-bridge/trend"
)

// History is what a history says, as every view of it shows it (history changes, history noise, the page, and the
// noise that gate and show --history note): the change points with what each one means, the noise of each device
// and case, each device's lines with their levels, and the changes that fail the nightly as warnings. The views
// render it and decide nothing.
type History struct {
	Devices []history.Device
	Nights  int
	// ByCode is how many of the changes the code caused.
	ByCode  int
	Changes []Change
	Noise   []trend.Noise
	Lines   []Line
	// Warnings are the changes that fail history changes --fail-new (Kind NewRegression), one each.
	Warnings []Warning
	// NightsNeeded is the fewest nights of a line in which a change can be found (stats.ChangePointNeeds: MinSegment
	// on each side, and a permutation test that can reach its alpha; 0 when it never can), and TooShort how many
	// lines have fewer: "no change" there means not judged yet, not "same".
	NightsNeeded, TooShort int
}

// Change is one change point of a case's history (trend.Change) with what it means for its reader.
type Change struct {
	trend.Change
	// Exact is set when the change's size is exact (counts, which repeat exactly), with no interval: Low = High.
	Exact bool
	// Bisect is the bench-bridge bisect command that finds the commit of the change; "" where bisect cannot.
	Bisect string
	// Fails is set when the change fails history changes --fail-new: the newest nights made it visible, and it is
	// a regression the code caused that nobody acknowledged.
	Fails bool
}

// Line is one device's series of one case and metric (trend.Line), with its levels.
type Line struct {
	trend.Line
	// Levels are the spans between the line's changes, each with its band of noise; none when the line's noise is
	// unknown (too few nights).
	Levels []Level
}

// Level is one span of a line between two changes: its nights, its middle value and the band of twice the line's
// night-to-night noise around it, where another night of that level is expected.
type Level struct {
	First, Last string
	Middle      float64
	Low, High   float64
}

// BuildHistory reads h under o (trend.Analyze) and gives the model every view of a history renders. o.MarkNew is
// what --fail-new needs: only changes marked new can fail.
func BuildHistory(h *history.History, o trend.Options) *History {
	r := trend.Analyze(h, o)
	out := &History{Devices: r.Devices, Nights: r.Nights, Noise: r.Noise, Warnings: []Warning{}}
	for _, c := range r.Changes {
		hc := Change{Change: c, Exact: c.Low == c.High, Bisect: bisectCommand(c), Fails: fails(c)}
		if c.Cause == trend.CauseCode {
			out.ByCode++
		}
		if hc.Fails {
			out.Warnings = append(out.Warnings, Warning{Kind: NewRegression, Text: fmt.Sprintf("%s %s (%s, %+.1f%% at %s..%s)",
				c.Case, c.Metric, c.Program, 100*c.Shift, ShortCommit(c.From), ShortCommit(c.To))})
		}
		out.Changes = append(out.Changes, hc)
	}
	out.NightsNeeded = stats.ChangePointNeeds(o.Thresholds)
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, Line{Line: l, Levels: levels(l)})
		if out.NightsNeeded == 0 || len(l.Points) < out.NightsNeeded {
			out.TooShort++
		}
	}
	return out
}

// fails reports whether c fails the nightly (Change.Fails).
func fails(c trend.Change) bool {
	return c.New && c.Regression && c.Cause == trend.CauseCode && c.Ack == nil
}

// levels are l's spans between its changes, each with the band of twice its noise around its middle value.
func levels(l trend.Line) []Level {
	if math.IsNaN(l.Spread) || len(l.Points) == 0 {
		return nil
	}
	var out []Level
	bounds := append(append([]int{0}, l.Changes...), len(l.Points))
	for i := 0; i+1 < len(bounds); i++ {
		seg := l.Points[bounds[i]:bounds[i+1]]
		vals := make([]float64, len(seg))
		for j, p := range seg {
			vals[j] = p.Value
		}
		slices.Sort(vals)
		mid := vals[len(vals)/2]
		out = append(out, Level{First: seg[0].Night, Last: seg[len(seg)-1].Night, Middle: mid,
			Low: mid * math.Exp(-2*l.Spread), High: mid * math.Exp(2*l.Spread)})
	}
	return out
}

// bisectCommand is the bisect that finds the commit of a change the code made to a bridge of the user's; "" where
// bisect cannot: a change of a device is no commit's, the floor and the reference bridge are built from
// bench-bridge's own tree, not a bridge's repository, and bisect measures time and instructions, not allocations.
func bisectCommand(c trend.Change) string {
	bridge, ok := strings.CutSuffix(c.Program, " bridge")
	if c.Cause != trend.CauseCode || !ok || slices.Contains(build.Codecs, bridge) || c.From == "" || c.To == "" {
		return ""
	}
	metric := "time"
	switch c.Metric {
	case trend.Ratio:
	case trend.Instructions:
		metric = "instructions"
	default:
		return ""
	}
	return fmt.Sprintf("bench-bridge bisect %s %s --bridge %s --cases %s --metric %s", c.From, c.To, bridge, c.Case, metric)
}

// ShortCommit is a commit as people read it: its first 12 characters.
func ShortCommit(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// NoiseOf is what the history says of a's device and program: the least change its nightly sees per case; nil
// without a history (h nil), or when the history has not seen that device and program.
func (h *History) NoiseOf(a *artifact.Artifact) *Noise {
	if h == nil {
		return nil
	}
	dev := history.DeviceOf(a, "")
	program := history.SeriesOf(a, dev.Key).Program
	n := &Noise{Device: dev.Key, Visible: map[string]float64{}}
	for _, x := range h.Noise {
		if x.Device == dev.Key && x.Program == program && x.Visible > 0 {
			n.Visible[x.Case] = x.Visible
		}
	}
	if len(n.Visible) == 0 {
		return nil
	}
	return n
}

// LoadHistory opens the history at location (history.Locate), loads it whole and reads it; markNew also finds
// which changes the newest nights made visible.
func LoadHistory(ctx context.Context, location string, markNew bool) (*History, error) {
	s, err := history.Open(ctx, history.Locate(location), history.Options{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	h, err := s.Load(ctx)
	if err != nil {
		return nil, err
	}
	o := trend.DefaultOptions
	o.MarkNew = markNew
	return BuildHistory(h, o), nil
}

// NewRegressions are the changes that the newest nights made visible and that the code caused, as warnings say them:
// what history changes --fail-new fails on.
func (h *History) NewRegressions() []string {
	var caught []string
	for _, w := range h.Warnings {
		if w.Kind == NewRegression {
			caught = append(caught, w.Text)
		}
	}
	return caught
}

// FindChange is the changes of case name whose commit range ends at a commit that starts with commit, of program and
// metric where they are not "" (history ack): found, and every change of the case, for an error that lists them.
func (h *History) FindChange(name, commit, program, metric string) (found, ofCase []Change) {
	for _, c := range h.Changes {
		if c.Case != name {
			continue
		}
		ofCase = append(ofCase, c)
		if strings.HasPrefix(c.To, commit) && (program == "" || c.Program == program) && (metric == "" || c.Metric == metric) {
			found = append(found, c)
		}
	}
	return found, ofCase
}

// TheChange is the one change of case name whose commit range ends at commit (its first characters will do), of
// program and metric when they are given (""), or an error that says what the history has instead; where names the
// history.
func (h *History) TheChange(name, commit, program, metric, where string) (Change, error) {
	found, ofCase := h.FindChange(name, commit, program, metric)
	describe := func(cs []Change) string {
		var out []string
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s %s at %s..%s", c.Program, c.Metric, ShortCommit(c.From), ShortCommit(c.To)))
		}
		return strings.Join(out, "; ")
	}
	switch {
	case len(found) == 0 && len(ofCase) == 0:
		return Change{}, fmt.Errorf("%s has no change in %s", name, where)
	case len(found) == 0:
		return Change{}, fmt.Errorf("no change of %s at commit %s; its changes: %s", name, commit, describe(ofCase))
	case len(found) > 1:
		return Change{}, fmt.Errorf("%d changes of %s at commit %s (%s): pick one with --program and --metric", len(found), name, commit, describe(found))
	}
	return found[0], nil
}
