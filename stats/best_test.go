package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func TestBestOverBest(t *testing.T) {
	// Processes 1 and 3 ran while the machine was slower: the case 1.8x, the ref 1.4x. The least of each is what
	// processes 0, 2 and 4 measured; the processes' own ratios (medians) are a little above their least.
	num := []float64{100, 180, 102, 181, 101}
	den := []float64{10, 14, 10.1, 14, 10.2}
	ratios := []float64{10.2, 180.0 / 14, 102 / 10.1, 181.0 / 14, 101 / 10.2}
	r := BestOverBest(num, den, ratios, 0.95)
	if r.Ratio != 10 {
		t.Errorf("ratio %v, want 100/10", r.Ratio)
	}
	if !(r.Low <= r.Ratio && r.Ratio <= r.High) || r.Confidence != 0.95 {
		t.Errorf("interval %v..%v at %v does not hold %v", r.Low, r.High, r.Confidence, r.Ratio)
	}
	// The interval: the ratio times exp(± t(0.975, 4) · sd of the logs of the processes' ratios · sqrt(pi/5)).
	var logs []float64
	for _, x := range ratios {
		logs = append(logs, math.Log(x))
	}
	half := 2.7764451 * stat.StdDev(logs, nil) * math.Sqrt(math.Pi/5)
	if math.Abs(r.Low-10*math.Exp(-half)) > 1e-6 || math.Abs(r.High-10*math.Exp(half)) > 1e-6 {
		t.Errorf("interval %v..%v, want 10 × exp(±%v)", r.Low, r.High, half)
	}
	// The median over processes of the per-process ratios moves with the mix of slow processes; this does not.
	if r2 := BestOverBest(append(num, 179, 182), append(den, 14.1, 13.9), append(ratios, 12.7, 13.1), 0.95); r2.Ratio != r.Ratio {
		t.Errorf("two more slow processes moved the ratio to %v", r2.Ratio)
	}
	if one := BestOverBest([]float64{5}, []float64{2}, []float64{2.6}, 0.95); one.Ratio != 2.5 || one.Low != 2.5 || one.Confidence != 0 {
		t.Errorf("one process: %+v", one)
	}
	if none := BestOverBest([]float64{0, math.Inf(1)}, []float64{1, 1}, []float64{0, 1}, 0.95); !math.IsNaN(none.Ratio) {
		t.Errorf("no usable process: %+v", none)
	}
}
