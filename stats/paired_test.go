package stats

import (
	"math"
	"testing"
)

func TestPairedRatio(t *testing.T) {
	a := []float64{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}
	// Nine pairs about 10% up and one that straddled a change of the machine's state: the median and the sign test
	// stay with the nine.
	b := []float64{11, 11.1, 10.9, 11, 11.2, 10.8, 11, 11, 11.1, 7}
	p, err := PairedRatio(a, b, Level)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Ratio-1.1) > 1e-9 {
		t.Errorf("ratio %v, want the median 1.1", p.Ratio)
	}
	// 9 of 10 above: P = 2 * P(Bin(10, 1/2) <= 1) = 22/1024.
	if want := 22.0 / 1024; math.Abs(p.P-want) > 1e-12 {
		t.Errorf("p %v, want %v", p.P, want)
	}
	// n = 10 at 95%: the 2nd smallest and the 2nd largest ratio.
	if math.Abs(p.Low-1.08) > 1e-12 || math.Abs(p.High-1.11) > 1e-12 {
		t.Errorf("interval %v..%v, want 1.08..1.11", p.Low, p.High)
	}
	// No change at all carries no sign.
	if p, _ := PairedRatio(a, a, Level); p.P != 1 || p.Ratio != 1 {
		t.Errorf("A against A: %+v", p)
	}
	// Too few pairs for a 95% interval: the whole range.
	if p, _ := PairedRatio([]float64{1, 1, 1}, []float64{2, 3, 4}, Level); p.Low != 2 || p.High != 4 || math.Abs(p.P-0.25) > 1e-12 {
		t.Errorf("three pairs: %+v", p)
	}
	for _, bad := range [][2][]float64{{{1}, {1}}, {{1, 2}, {1}}, {{1, 0}, {1, 1}}, {{1, math.Inf(1)}, {1, 1}}} {
		if _, err := PairedRatio(bad[0], bad[1], Level); err == nil {
			t.Errorf("PairedRatio(%v, %v): no error", bad[0], bad[1])
		}
	}
}

func TestLeastSignP(t *testing.T) {
	for n, want := range map[int]float64{1: 1, 5: 0.0625, 6: 0.03125} {
		if got := LeastSignP(n); got != want {
			t.Errorf("LeastSignP(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestChangeThresholds(t *testing.T) {
	tests := []struct {
		name   string
		th     ChangeThresholds
		change float64
		p      float64
		tested Direction
		beyond Direction
	}{
		{"unpaired: significant and beyond", UnpairedThresholds(0.05, 0.10), 0.12, 0.01, Worse, Worse},
		{"unpaired: significant, within", UnpairedThresholds(0.05, 0.10), 0.08, 0.01, Unchanged, Unchanged},
		{"unpaired: at the margin", UnpairedThresholds(0.05, 0.10), 0.10, 0.01, Unchanged, Unchanged},
		{"unpaired: beyond, not significant", UnpairedThresholds(0.05, 0.10), 0.5, 0.2, Unchanged, Worse},
		{"unpaired: better", UnpairedThresholds(0.05, 0.10), -0.2, 0.05, Better, Better},
		{"paired: beyond half the effect", PairedThresholds(0.05, 0.10), 0.06, 0.01, Worse, Worse},
		{"paired: within half the effect", PairedThresholds(0.05, 0.10), 0.04, 0.01, Unchanged, Unchanged},
		{"paired: better", PairedThresholds(0.05, 0.10), -0.06, 0.01, Better, Better},
		{"a NaN alpha finds nothing significant", ChangeThresholds{Alpha: math.NaN(), Margin: 0.1}, 0.5, 0, Unchanged, Worse},
		{"absolute margin 0: any growth", ChangeThresholds{Margin: 0}, 1, 0, Unchanged, Worse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.th.Tested(tt.change, tt.p); got != tt.tested {
				t.Errorf("Tested(%v, %v) = %v, want %v", tt.change, tt.p, got, tt.tested)
			}
			if got := tt.th.Beyond(tt.change); got != tt.beyond {
				t.Errorf("Beyond(%v) = %v, want %v", tt.change, got, tt.beyond)
			}
		})
	}
}
