package stats

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func TestPredictionInterval(t *testing.T) {
	values := []float64{5, 1, 4, 2, 3}
	s := PredictionInterval(values, Level)
	// median 3; t(0.975, 4) = 2.7764451; in logs, half-width t * sd(logs) * sqrt(2 * 0.5 + pi / 5).
	logs := []float64{math.Log(5), 0, math.Log(4), math.Log(2), math.Log(3)}
	half := 2.7764451 * stat.StdDev(logs, nil) * math.Sqrt(1+math.Pi/5)
	if s.Median != 3 || s.N != 5 || s.Level != 0.95 || math.Abs(s.Low-3*math.Exp(-half)) > 1e-6 || math.Abs(s.High-3*math.Exp(half)) > 1e-6 {
		t.Fatalf("got %+v, want 3 × exp(±%v)", s, half)
	}
	// In the fastest state the run-level share is 0.25: sqrt(2 * 0.25 + pi / 5).
	in := PredictionIntervalInState(values, Level)
	if halfIn := 2.7764451 * stat.StdDev(logs, nil) * math.Sqrt(0.5+math.Pi/5); in.Median != 3 || math.Abs(in.High-3*math.Exp(halfIn)) > 1e-6 {
		t.Fatalf("in the fastest state: got %+v, want 3 × exp(±%v)", in, halfIn)
	}
	tests := []struct {
		name   string
		values []float64
		level  float64
		median float64 // NaN for none
	}{
		{"a zero value", []float64{0, 1, 2}, Level, 1},
		{"one process", []float64{7}, Level, 7},
		{"level 1", []float64{1, 2, 3}, 1, 2},
		{"no processes", nil, Level, math.NaN()},
		{"NaN value", []float64{1, math.NaN()}, Level, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := PredictionInterval(tt.values, tt.level)
			if !sameFloat(p.Median, tt.median) || p.Level != 0 {
				t.Fatalf("got %+v, want median %v and no interval", p, tt.median)
			}
			if !math.IsNaN(tt.median) && (p.Low != p.Median || p.High != p.Median) {
				t.Errorf("bounds %v..%v, want the median", p.Low, p.High)
			}
		})
	}
}

func TestSpread(t *testing.T) {
	tests := []struct {
		name string
		p    Prediction
		want float64 // NaN for none
	}{
		{"symmetric", Prediction{Median: 100, Low: 90, High: 110}, 0.1},
		{"wider above", Prediction{Median: 100, Low: 95, High: 130}, 0.3},
		{"wider below", Prediction{Median: 100, Low: 60, High: 101}, 0.4},
		{"no interval", Prediction{Median: 100, Low: 100, High: 100}, 0},
		{"zero median", Prediction{Median: 0, Low: 0, High: 1}, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Spread(); !sameFloat(got, tt.want) && math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Spread() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnstable(t *testing.T) {
	intervals := []Prediction{
		{Median: 100, Low: 95, High: 105},  // ±5%
		{Median: 100, Low: 80, High: 105},  // ±20%
		{Median: 100, Low: 90, High: 110},  // ±10%: not above
		{Median: 100, Low: 70, High: 100},  // ±30%
		{Median: 100, Low: 100, High: 120}, // ±20%, after the other ±20%
	}
	got := Unstable(intervals, DefaultStability)
	var idx []int
	for _, w := range got {
		idx = append(idx, w.Index)
	}
	if !slices.Equal(idx, []int{3, 1, 4}) || math.Abs(got[0].Spread-0.3) > 1e-12 {
		t.Errorf("Unstable = %+v, want indices 3, 1, 4 with 3 at ±30%%", got)
	}
	if got := Unstable(intervals, StabilityThresholds{MaxSpread: 0.5}); len(got) != 0 {
		t.Errorf("at ±50%%: %+v, want none", got)
	}
}
