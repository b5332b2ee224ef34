package stats

import (
	"math"
	"strings"
	"testing"
)

func TestCheckAlphaAndSignificant(t *testing.T) {
	tests := []struct {
		name     string
		alpha, p float64
		valid    bool
		sig      bool
	}{
		{"p below alpha", 0.05, 0.01, true, true},
		{"p equal to alpha is significant, as in benchstat", 0.05, 0.05, true, true},
		{"p above alpha", 0.05, 0.06, true, false},
		{"NaN alpha", math.NaN(), 0, false, false},
		{"+Inf alpha", math.Inf(1), 0, false, false},
		{"-Inf alpha", math.Inf(-1), 0, false, false},
		{"zero alpha", 0, 0, false, false},
		{"alpha one", 1, 0.5, false, false},
		{"negative alpha", -0.05, 0, false, false},
		{"NaN p", 0.05, math.NaN(), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckAlpha(tt.alpha); (err == nil) != tt.valid {
				t.Errorf("CheckAlpha(%v) = %v, want valid %v", tt.alpha, err, tt.valid)
			}
			if got := Significant(tt.p, tt.alpha); got != tt.sig {
				t.Errorf("Significant(%v, %v) = %v, want %v", tt.p, tt.alpha, got, tt.sig)
			}
		})
	}
}

// Compare with an alpha that is no level finds nothing significant and says why, rather than quietly switching the
// test off.
func TestCompareRefusesABadAlpha(t *testing.T) {
	a, b := []float64{10, 11, 12, 13, 14}, []float64{30, 31, 32, 33, 34}
	for _, alpha := range []float64{math.NaN(), math.Inf(1), 2} {
		c := Compare(a, b, Thresholds{Alpha: alpha})
		if c.Significant || len(c.Warnings) == 0 || !strings.Contains(c.Warnings[0], "not a significance level") {
			t.Errorf("alpha %v: significant %v, warnings %q", alpha, c.Significant, c.Warnings)
		}
	}
	if c := Compare(a, []float64{}, DefaultThresholds); c.Err == nil || c.P != 1 {
		t.Errorf("empty sample: Err %v, P %v", c.Err, c.P)
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5}, // the mean of the middle two, not the upper one
		{nil, math.NaN()},
		{[]float64{1, math.NaN()}, math.NaN()},
	}
	for _, tt := range tests {
		xs := append([]float64(nil), tt.xs...)
		if got := Median(xs); !sameFloat(got, tt.want) {
			t.Errorf("Median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
		for i := range xs {
			if !sameFloat(xs[i], tt.xs[i]) {
				t.Errorf("Median modified its input: %v", xs)
			}
		}
	}
}

func TestCheckEffect(t *testing.T) {
	for v, valid := range map[float64]bool{0: true, 0.1: true, 3: true, -0.1: false, math.NaN(): false, math.Inf(1): false, math.Inf(-1): false} {
		if err := CheckEffect(v); (err == nil) != valid {
			t.Errorf("CheckEffect(%v) = %v, want valid %v", v, err, valid)
		}
	}
}
