package trend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bench-bridge/bench-bridge/history"
)

// lab is a history of devices measured every night at that night's commit, c00, c01, ...: ratio(d, n) gives device
// d's ratio on night n (with 1% noise added, seeded), instr(d, n) its instructions per op (NaN for none).
func lab(devices, nights int, ratio, instr func(d, n int) float64) *history.History {
	h := &history.History{}
	for d := range devices {
		key := fmt.Sprintf("dev%d", d)
		s := history.Series{SeriesKey: history.SeriesKey{Device: key, Program: "json bridge"}, Device: history.Device{Key: key}}
		rng := rand.New(rand.NewPCG(uint64(d), 1))
		for n := range nights {
			r := history.Result{Case: "script_to_host_scalar", Ratio: ratio(d, n) * math.Exp(0.01*rng.NormFloat64()),
				Instructions: instr(d, n), Allocs: math.NaN()}
			s.Nights = append(s.Nights, history.Night{Night: fmt.Sprintf("2026-%02d-%02d", 1+n/28, 1+n%28),
				Revision: fmt.Sprintf("c%02d", n), Results: []history.Result{r}})
		}
		h.Series = append(h.Series, s)
	}
	return h
}

func step(at ...int) func(d, n int) float64 {
	return func(d, n int) float64 {
		v := 50.0
		for i, a := range at {
			if n >= a && (i > 0 || d == 0) {
				v *= 1.1
			}
		}
		return v
	}
}

func noCount(int, int) float64 { return math.NaN() }

// TestCodeOrDevice: a 10% slowdown from night 20 on one device of three is that device's, one from night 30 on all
// three is the code's; each names its first night, commit range, size and devices.
func TestCodeOrDevice(t *testing.T) {
	r := Analyze(lab(3, 40, step(20, 30), noCount), DefaultOptions)
	if len(r.Changes) != 2 {
		t.Fatalf("changes %+v, want 2", r.Changes)
	}
	code, dev := r.Changes[0], r.Changes[1]
	if code.FirstNight != "2026-02-03" || code.From != "c29" || code.To != "c30" || code.Cause != CauseCode ||
		!slices.Equal(code.Devices, []string{"dev0", "dev1", "dev2"}) || math.Abs(code.Shift-0.1) > 0.02 || !code.Regression || !code.Open {
		t.Errorf("the code's change: %+v", code)
	}
	if dev.To != "c20" || dev.Cause != CauseDevice || !slices.Equal(dev.Devices, []string{"dev0"}) || len(dev.Exposed) != 3 || dev.Open {
		t.Errorf("the device's change: %+v", dev)
	}
	if len(r.Noise) != 3 || r.Noise[1].Spread < 0.005 || r.Noise[1].Spread > 0.015 || r.Noise[1].Visible < 0.03 {
		t.Errorf("noise %+v, want about 1%% on each device", r.Noise)
	}
}

// TestAAHasNoChange: forty nights of the same code on three devices show no change.
func TestAAHasNoChange(t *testing.T) {
	if r := Analyze(lab(3, 40, step(), noCount), DefaultOptions); len(r.Changes) != 0 {
		t.Errorf("changes %+v, want none", r.Changes)
	}
}

// TestExactCounts: an instruction count that moves is a change of the code, on one device as on several, and is
// found the night it moves.
func TestExactCounts(t *testing.T) {
	instr := func(d, n int) float64 {
		if d == 1 {
			return math.NaN()
		}
		if n >= 37 {
			return 1100
		}
		return 1000
	}
	r := Analyze(lab(2, 38, step(), instr), DefaultOptions)
	if len(r.Changes) != 1 {
		t.Fatalf("changes %+v", r.Changes)
	}
	if c := r.Changes[0]; c.Metric != Instructions || c.To != "c37" || c.Cause != CauseCode || math.Abs(c.Shift-0.1) > 1e-9 || c.Low != c.High {
		t.Errorf("the count's change: %+v", c)
	}
}

// TestNewChanges: a change that the newest night made visible is new; one seen before is not.
func TestNewChanges(t *testing.T) {
	o := DefaultOptions
	o.MarkNew = true
	r := Analyze(lab(3, 40, step(10, 34), noCount), o)
	if len(r.Changes) != 2 || !r.Changes[0].New || r.Changes[0].To != "c34" || r.Changes[1].New {
		t.Errorf("changes %+v: want the one at c34 new, the one at c10 not", r.Changes)
	}
}
