package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func TestSummarizeProcesses(t *testing.T) {
	values := []float64{5, 1, 4, 2, 3}
	s := SummarizeProcesses(values, 0.95)
	// median 3; t(0.975, 4) = 2.7764451; in logs, half-width t * sd(logs) * sqrt(2 * 0.5 + pi / 5).
	logs := []float64{math.Log(5), 0, math.Log(4), math.Log(2), math.Log(3)}
	half := 2.7764451 * stat.StdDev(logs, nil) * math.Sqrt(1+math.Pi/5)
	if s.Median != 3 || s.N != 5 || s.Confidence != 0.95 || math.Abs(s.Low-3*math.Exp(-half)) > 1e-6 || math.Abs(s.High-3*math.Exp(half)) > 1e-6 {
		t.Fatalf("got %+v, want 3 × exp(±%v)", s, half)
	}
	if z := SummarizeProcesses([]float64{0, 1, 2}, 0.95); z.Median != 1 || z.Confidence != 0 {
		t.Fatalf("a zero value: %+v, want the median and no interval", z)
	}
	one := SummarizeProcesses([]float64{7}, 0.95)
	if one.Median != 7 || one.Low != 7 || one.High != 7 || one.Confidence != 0 {
		t.Fatalf("one process: %+v, want no interval", one)
	}
	if e := SummarizeProcesses(nil, 0.95); !math.IsNaN(e.Median) {
		t.Fatalf("no processes: %+v", e)
	}
}
