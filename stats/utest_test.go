package stats

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestMannWhitneyU(t *testing.T) {
	// Exact two-sided p-values, by hand. Under the null hypothesis
	// every one of the C(n1+n2, n1) ways to interleave the samples is
	// equally likely, and p = 2 * P(U <= observed smaller U).
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		// Fully separated, 5 and 5: U = 0 is one arrangement of
		// C(10,5) = 252, so p = 2 * 1/252.
		{"separated 5+5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252},
		{"separated 5+5 reversed", []float64{10, 9, 8, 7, 6}, []float64{5, 4, 3, 2, 1}, 2.0 / 252},
		// Fully separated, 3 and 3: p = 2 * 1/C(6,3) = 2/20.
		{"separated 3+3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		// 4 and 4 with one crossing (5 > 4): U = 1. U = 0 and U = 1
		// are one arrangement each of C(8,4) = 70: p = 2 * 2/70.
		{"one crossing 4+4", []float64{1, 2, 3, 5}, []float64{4, 6, 7, 8}, 4.0 / 70},
		// One value each: U is 0 or 1, each with probability 1/2.
		{"one each", []float64{1}, []float64{2}, 1},
		// Identical samples: U1 = U2, so p = 1.
		{"identical", []float64{1, 2, 3}, []float64{1, 2, 3}, 1},
		{"interleaved", []float64{1, 4, 5, 8}, []float64{2, 3, 6, 7}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := slices.Clone(tt.a), slices.Clone(tt.b)
			p, err := MannWhitneyU(a, b)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if math.Abs(p-tt.want) > 1e-12 {
				t.Errorf("p = %v, want %v", p, tt.want)
			}
			if !slices.Equal(a, tt.a) || !slices.Equal(b, tt.b) {
				t.Errorf("MannWhitneyU modified its input")
			}
		})
	}
}

func TestMannWhitneyUErrors(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want error
	}{
		{"empty a", nil, []float64{1, 2}, ErrTooFewSamples},
		{"empty b", []float64{1, 2}, []float64{}, ErrTooFewSamples},
		{"both empty", nil, nil, ErrTooFewSamples},
		{"all equal", []float64{5, 5, 5}, []float64{5, 5}, ErrSamplesEqual},
		{"all equal large", slices.Repeat([]float64{3}, 60), slices.Repeat([]float64{3}, 60), ErrSamplesEqual},
		{"NaN", []float64{1, math.NaN()}, []float64{2, 3}, ErrNaN},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := MannWhitneyU(tt.a, tt.b)
			if !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			if !math.IsNaN(p) {
				t.Errorf("p = %v, want NaN", p)
			}
		})
	}
}
