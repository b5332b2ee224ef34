package stats

import (
	"math"
	"testing"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name        string
		a, b        []float64
		th          Thresholds
		ratio       float64
		p           float64
		alpha       float64
		significant bool
		warning     string
	}{
		{
			name: "separated 5+5",
			a:    []float64{10, 11, 12, 13, 14}, b: []float64{20, 21, 22, 23, 24},
			th:    DefaultThresholds,
			ratio: 22.0 / 12, p: 2.0 / 252, alpha: 0.05, significant: true,
		},
		{
			name: "zero Thresholds means default alpha",
			a:    []float64{14, 13, 12, 11, 10}, b: []float64{5, 6, 7, 8, 9},
			ratio: 7.0 / 12, p: 2.0 / 252, alpha: 0.05, significant: true,
		},
		{
			// 2/252 > 0.005, and 5 values can never get below
			// 0.005: that needs 6 (2/C(12,6) = 2/924).
			name: "separated 5+5 at alpha 0.005",
			a:    []float64{10, 11, 12, 13, 14}, b: []float64{20, 21, 22, 23, 24},
			th:    Thresholds{Alpha: 0.005},
			ratio: 22.0 / 12, p: 2.0 / 252, alpha: 0.005,
			warning: "need >= 6 samples to detect a difference at alpha level 0.005",
		},
		{
			// The best 3 values can do is 2/20 = 0.1.
			name: "separated 3+3",
			a:    []float64{1, 2, 3}, b: []float64{4, 5, 6},
			th:    DefaultThresholds,
			ratio: 5.0 / 2, p: 0.1, alpha: 0.05,
			warning: "need >= 4 samples to detect a difference at alpha level 0.05",
		},
		{
			// Not significant, but 4 values could have been.
			name: "one crossing 4+4",
			a:    []float64{1, 2, 3, 5}, b: []float64{4, 6, 7, 8},
			th:    DefaultThresholds,
			ratio: 6.5 / 2.5, p: 4.0 / 70, alpha: 0.05,
		},
		{
			name: "separated 3+3 at alpha 0.11",
			a:    []float64{1, 2, 3}, b: []float64{4, 5, 6},
			th:    Thresholds{Alpha: 0.11},
			ratio: 5.0 / 2, p: 0.1, alpha: 0.11, significant: true,
		},
		{
			name: "equal medians",
			a:    []float64{1, 2, 3}, b: []float64{1, 2, 3},
			th:    DefaultThresholds,
			ratio: 1, p: 1, alpha: 0.05,
			warning: "need >= 4 samples to detect a difference at alpha level 0.05",
		},
		{
			name: "all equal",
			a:    []float64{2, 2, 2, 2}, b: []float64{2, 2, 2, 2},
			th:    DefaultThresholds,
			ratio: 1, p: 1, alpha: 0.05,
			warning: "stats: all values in both samples are equal (4 and 4 values of 2)",
		},
		{
			name: "empty baseline",
			a:    nil, b: []float64{1, 2},
			th:    DefaultThresholds,
			ratio: math.NaN(), p: 1, alpha: 0.05,
			warning: "stats: Mann-Whitney U test needs at least one value in each sample (got 0 and 2 values)",
		},
		{
			name: "zero baseline median",
			a:    []float64{0, 0, 0, 0, 0}, b: []float64{1, 1, 1, 1, 1},
			th:    DefaultThresholds,
			ratio: math.Inf(1), p: 2.0 / 252, alpha: 0.05, significant: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(tt.a, tt.b, tt.th)
			if !sameFloat(c.Ratio, tt.ratio) && math.Abs(c.Ratio-tt.ratio) > 1e-12 {
				t.Errorf("Ratio = %v, want %v", c.Ratio, tt.ratio)
			}
			if math.Abs(c.P-tt.p) > 1e-12 {
				t.Errorf("P = %v, want %v", c.P, tt.p)
			}
			if c.Alpha != tt.alpha {
				t.Errorf("Alpha = %v, want %v", c.Alpha, tt.alpha)
			}
			if c.Significant != tt.significant {
				t.Errorf("Significant = %v, want %v", c.Significant, tt.significant)
			}
			if c.N1 != len(tt.a) || c.N2 != len(tt.b) {
				t.Errorf("N1, N2 = %d, %d, want %d, %d", c.N1, c.N2, len(tt.a), len(tt.b))
			}
			checkWarnings(t, c.Warnings, tt.warning)
		})
	}
}
