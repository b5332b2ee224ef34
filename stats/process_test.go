package stats

import (
	"math"
	"testing"
)

func TestSummarizeProcesses(t *testing.T) {
	s := SummarizeProcesses([]float64{5, 1, 4, 2, 3}, 0.95)
	// median 3; sd sqrt(2.5); t(0.975, 4) = 2.7764451; half-width t * sd * sqrt(pi / 5).
	half := 2.7764451 * math.Sqrt(2.5) * math.Sqrt(math.Pi/5)
	if s.Median != 3 || s.N != 5 || s.Confidence != 0.95 || math.Abs(s.Low-(3-half)) > 1e-6 || math.Abs(s.High-(3+half)) > 1e-6 {
		t.Fatalf("got %+v, want 3 ± %v", s, half)
	}
	one := SummarizeProcesses([]float64{7}, 0.95)
	if one.Median != 7 || one.Low != 7 || one.High != 7 || one.Confidence != 0 {
		t.Fatalf("one process: %+v, want no interval", one)
	}
	if e := SummarizeProcesses(nil, 0.95); !math.IsNaN(e.Median) {
		t.Fatalf("no processes: %+v", e)
	}
}

func TestPairedRatio(t *testing.T) {
	a := []float64{100, 120, 90, 110, 105}
	b := make([]float64, len(a))
	for i := range a {
		b[i] = a[i] * 1.1
	}
	p, err := PairedRatio(a, b, 0.95)
	if err != nil || math.Abs(p.Ratio-1.1) > 1e-12 || p.P != 0 || p.N != 5 {
		t.Fatalf("exact 10%%: %+v, %v", p, err)
	}
	// Log ratios 0.1, 0.05, 0.15: mean 0.1, sd 0.05, se 0.05/sqrt(3), t = 3.4641 on 2 df: p = 0.07418.
	p, err = PairedRatio([]float64{1, 1, 1}, []float64{math.Exp(0.1), math.Exp(0.05), math.Exp(0.15)}, 0.95)
	if err != nil || math.Abs(p.Ratio-math.Exp(0.1)) > 1e-12 || math.Abs(p.P-0.07418) > 1e-4 || !(p.Low < 1 && p.High > math.Exp(0.15)) {
		t.Fatalf("got %+v, %v", p, err)
	}
	same, _ := PairedRatio(a, a, 0.95)
	if same.Ratio != 1 || same.P != 1 {
		t.Fatalf("A/A: %+v", same)
	}
	for _, bad := range [][2][]float64{{{1}, {1}}, {{1, 2}, {1}}, {{1, 0}, {1, 1}}, {{1, math.Inf(1)}, {1, 1}}} {
		if _, err := PairedRatio(bad[0], bad[1], 0.95); err == nil {
			t.Errorf("PairedRatio(%v, %v): want an error", bad[0], bad[1])
		}
	}
}
