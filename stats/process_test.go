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
