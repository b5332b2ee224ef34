package analysis

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/history"
	"github.com/bench-bridge/bench-bridge/trend"
)

// stepHistory is two devices' 40 nights of program, 10% slower on both from night 30 (commit c30): the code's change.
func stepHistory(program string) *history.History {
	h := &history.History{}
	for d := range 2 {
		key := fmt.Sprintf("dev%d", d)
		s := history.Series{SeriesKey: history.SeriesKey{Device: key, Program: program}, Device: history.Device{Key: key}}
		for n := range 40 {
			ratio := 50 * (1 + 0.01*math.Sin(float64(7*n+d)))
			if n >= 30 {
				ratio *= 1.1
			}
			s.Nights = append(s.Nights, history.Night{Night: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n).Format("2006-01-02"),
				Revision: fmt.Sprintf("c%02d", n), Results: []history.Result{{Case: "callback", Ratio: ratio, Instructions: math.NaN(), Allocs: math.NaN()}}})
		}
		h.Series = append(h.Series, s)
	}
	return h
}

// The code's change is counted, named with its bisect for a bridge of the user's only, and each line has a level
// on either side of it, with a band around each.
func TestBuildHistoryChanges(t *testing.T) {
	for _, tt := range []struct{ program, bisect string }{
		{"mine bridge", "bench-bridge bisect c29 c30 --bridge mine --cases callback --metric time"},
		{"json bridge", ""}, // the reference bridge is built from bench-bridge's own tree
		{"floor", ""},
	} {
		h := BuildHistory(stepHistory(tt.program), trend.DefaultOptions)
		if len(h.Changes) != 1 || h.ByCode != 1 {
			t.Fatalf("%s: %d changes, %d by the code, want one, the code's", tt.program, len(h.Changes), h.ByCode)
		}
		c := h.Changes[0]
		if c.Bisect != tt.bisect || c.Exact || c.To != "c30" {
			t.Errorf("%s: change %+v, want bisect %q", tt.program, c, tt.bisect)
		}
		for _, l := range h.Lines {
			if len(l.Levels) != 2 || l.Levels[0].Last != "2026-10-30" || l.Levels[1].First != "2026-10-31" {
				t.Fatalf("%s: levels %+v, want two, split at night 30", l.Device, l.Levels)
			}
			for _, lv := range l.Levels {
				if !(lv.Low < lv.Middle && lv.Middle < lv.High) {
					t.Errorf("%s: level %+v has no band around its middle", l.Device, lv)
				}
			}
			if r := l.Levels[1].Middle / l.Levels[0].Middle; r < 1.05 || r > 1.15 {
				t.Errorf("%s: the levels' middles are %v apart, want the 10%% step", l.Device, r)
			}
		}
	}
}

// Only a change the newest nights made visible (marked new), the code's and a regression, with no ack, fails the
// nightly: one warning each.
func TestBuildHistoryFailsOnlyNewUnacknowledgedRegressions(t *testing.T) {
	h := stepHistory("json bridge")
	newest := 30 + trend.DefaultOptions.Thresholds.MinSegment // the first night with enough nights after the step
	for i := range h.Series {
		h.Series[i].Nights = h.Series[i].Nights[:newest]
	}
	marked := trend.DefaultOptions
	marked.MarkNew = true
	got := BuildHistory(h, marked)
	if len(got.Changes) != 1 || !got.Changes[0].Fails || len(got.Warnings) != 1 || got.Warnings[0].Kind != NewRegression ||
		!strings.HasPrefix(got.Warnings[0].Text, "callback ratio (json bridge, +") || !strings.HasSuffix(got.Warnings[0].Text, " at c29..c30)") {
		t.Fatalf("changes %+v, warnings %v: want the new regression to fail", got.Changes, got.Warnings)
	}
	if got := BuildHistory(h, trend.DefaultOptions); got.Changes[0].Fails || len(got.Warnings) != 0 {
		t.Errorf("not marked new, yet failing: %v", got.Warnings)
	}
	h.Acks = []history.Ack{{Program: "json bridge", Case: "callback", Metric: trend.Ratio, To: "c30", Note: "on purpose"}}
	if got := BuildHistory(h, marked); got.Changes[0].Fails || len(got.Warnings) != 0 {
		t.Errorf("acknowledged, yet failing: %v", got.Warnings)
	}
}

// FindChange picks a change by its case and the start of its last commit, and lists the case's changes.
func TestFindChange(t *testing.T) {
	h := BuildHistory(stepHistory("json bridge"), trend.DefaultOptions)
	if found, all := h.FindChange("callback", "c3", "", ""); len(found) != 1 || len(all) != 1 {
		t.Errorf("found %d of %d", len(found), len(all))
	}
	if found, all := h.FindChange("callback", "c2", "", ""); len(found) != 0 || len(all) != 1 {
		t.Errorf("at another commit: found %d of %d", len(found), len(all))
	}
	if found, _ := h.FindChange("callback", "c30", "floor", ""); len(found) != 0 {
		t.Errorf("of another program: found %d", len(found))
	}
}

// NoiseOf takes from the history what it says of the artifact's device and program only.
func TestNoiseOfIsTheDevicesOwn(t *testing.T) {
	a := &artifact.Artifact{Target: "fake-a", Kind: artifact.ProgramBridge, Codec: "json", Device: artifact.Device{CPUModel: "fake cpu"}}
	key := history.DeviceOf(a, "").Key
	h := &History{Noise: []trend.Noise{
		{Program: "json bridge", Device: key, Case: "callback", Visible: 0.2},
		{Program: "fast bridge", Device: key, Case: "callback", Visible: 0.5},
		{Program: "json bridge", Device: "another", Case: "script_to_host_scalar", Visible: 0.5},
	}}
	n := h.NoiseOf(a)
	if n == nil || n.Device != key || len(n.Visible) != 1 || n.Visible["callback"] != 0.2 {
		t.Errorf("noise %+v", n)
	}
	if (*History)(nil).NoiseOf(a) != nil {
		t.Error("noise without a history")
	}
}
