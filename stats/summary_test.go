package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	mstats "github.com/aclements/go-moremath/stats"
)

func TestSummarizeMedian(t *testing.T) {
	tests := []struct {
		name    string
		samples []float64
		want    float64
	}{
		{"one element", []float64{7}, 7},
		{"odd", []float64{3, 1, 2}, 2},
		{"odd unsorted with duplicates", []float64{5, 1, 5, 9, 2}, 5},
		{"even", []float64{4, 1, 3, 2}, 2.5},
		{"even two elements", []float64{10, 20}, 15},
		{"even negative", []float64{-1, -4, -2, -3}, -2.5},
		{"even equal middle", []float64{1, 2, 2, 3}, 2},
		{"infinities", []float64{math.Inf(-1), 0, math.Inf(1)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.samples)
			got := Summarize(in, 0.95)
			if got.Median != tt.want {
				t.Errorf("Median = %v, want %v", got.Median, tt.want)
			}
			if got.N != len(tt.samples) {
				t.Errorf("N = %d, want %d", got.N, len(tt.samples))
			}
			if !slices.Equal(in, tt.samples) {
				t.Errorf("Summarize modified its input: %v, was %v", in, tt.samples)
			}
		})
	}
}

func TestSummarizeInterval(t *testing.T) {
	// K, the number of samples below the population median, is
	// Binomial(n, 1/2), and [X(lo), X(hi)] covers the median exactly
	// when lo <= K <= hi-1.
	//
	// n = 10: P(K=k) = C(10,k)/1024, with C(10,k) = 1 10 45 120 210 252
	// 210 120 45 10 1 for k = 0..10.
	//   [X(2), X(9)]: P(2 <= K <= 8) = 1 - 2*(1+10)/1024 = 1002/1024 = 0.978515625 >= 0.95
	//   [X(3), X(8)]: P(3 <= K <= 7) = 1 - 2*(1+10+45)/1024 = 912/1024 = 0.890625 < 0.95
	//   [X(2), X(8)]: P(2 <= K <= 7) = 1 - (1+10)/1024 - (1+10+45)/1024 = 957/1024 ≈ 0.9346 < 0.95
	// so the narrowest interval at 0.95 is the 2nd to 9th order statistic.
	//
	// n = 6: [X(1), X(6)] has P(1 <= K <= 5) = 1 - 2/64 = 0.96875 >= 0.95,
	// and [X(2), X(6)] has 1 - (1+6)/64 - 1/64 = 0.875, so n = 6 is the
	// first n with a finite interval at 0.95. For n = 5, [X(1), X(5)] has
	// only 1 - 2/32 = 0.9375.
	tests := []struct {
		name       string
		samples    []float64
		confidence float64
		low, high  float64
		actual     float64
		warning    string
	}{
		{"n=10", []float64{70, 20, 100, 40, 10, 90, 30, 60, 80, 50}, 0.95, 20, 90, 1002.0 / 1024, ""},
		{"n=6", []float64{6, 5, 4, 3, 2, 1}, 0.95, 1, 6, 1 - 2.0/64, ""},
		{"n=5 too small", []float64{5, 3, 1, 4, 2}, 0.95, 1, 5, 1 - 2.0/32,
			"need >= 6 samples for confidence interval at level 0.95"},
		{"n=4 at 0.9 too small", []float64{1, 2, 3, 4}, 0.9, 1, 4, 1 - 2.0/16,
			"need >= 5 samples for confidence interval at level 0.9"},
		{"n=1", []float64{42}, 0.95, 42, 42, 0,
			"need >= 6 samples for confidence interval at level 0.95"},
		{"n=8 at 0.99", []float64{1, 2, 3, 4, 5, 6, 7, 8}, 0.99, 1, 8, 1 - 2.0/256, ""},
		{"n=7 at 0.99 too small", []float64{1, 2, 3, 4, 5, 6, 7}, 0.99, 1, 7, 1 - 2.0/128,
			"need >= 8 samples for confidence interval at level 0.99"},
		{"level 1", []float64{1, 2, 3, 4, 5, 6, 7}, 1, 1, 7, 1 - 2.0/128,
			"need > 50 samples for confidence interval at level 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.samples, tt.confidence)
			if got.Low != tt.low || got.High != tt.high {
				t.Errorf("interval = [%v, %v], want [%v, %v]", got.Low, got.High, tt.low, tt.high)
			}
			if math.Abs(got.Confidence-tt.actual) > 1e-12 {
				t.Errorf("Confidence = %v, want %v", got.Confidence, tt.actual)
			}
			checkWarnings(t, got.Warnings, tt.warning)
		})
	}
}

func TestSummarizeInvalid(t *testing.T) {
	tests := []struct {
		name       string
		samples    []float64
		confidence float64
		median     float64 // NaN for none
		warning    string
	}{
		{"empty", nil, 0.95, math.NaN(), "no samples"},
		{"NaN sample", []float64{1, math.NaN(), 3}, 0.95, math.NaN(), "samples contain NaN"},
		{"zero confidence", []float64{1, 2, 3}, 0, 2, "confidence level 0 not in (0, 1]"},
		{"confidence above 1", []float64{1, 2, 3}, 1.5, 2, "confidence level 1.5 not in (0, 1]"},
		{"NaN confidence", []float64{1, 2, 3}, math.NaN(), 2, "confidence level NaN not in (0, 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.samples, tt.confidence)
			if !sameFloat(got.Median, tt.median) {
				t.Errorf("Median = %v, want %v", got.Median, tt.median)
			}
			if !math.IsNaN(got.Low) || !math.IsNaN(got.High) || !math.IsNaN(got.Confidence) {
				t.Errorf("interval = [%v, %v] @ %v, want NaNs", got.Low, got.High, got.Confidence)
			}
			if got.N != len(tt.samples) {
				t.Errorf("N = %d, want %d", got.N, len(tt.samples))
			}
			checkWarnings(t, got.Warnings, tt.warning)
		})
	}
}

// TestMedianCIMatchesMoremath checks that the interval is benchstat's:
// the same order statistics as moremath's QuantileCI(n, 0.5, level), and
// so the same values, except that where moremath's bound is ±∞ (too few
// samples) Summarize gives the sample's min or max and a warning.
func TestMedianCIMatchesMoremath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, level := range []float64{0.5, 0.8, 0.9, 0.95, 0.99, 0.999} {
		for n := 1; n <= 50; n++ {
			ci := mstats.QuantileCI(n, 0.5, level)
			lo, hi := medianCIOrders(n, level)
			if lo != ci.LoOrder || hi != ci.HiOrder {
				t.Errorf("level %v n=%d: orders [%d, %d], moremath [%d, %d]",
					level, n, lo, hi, ci.LoOrder, ci.HiOrder)
				continue
			}

			xs := make([]float64, n)
			for i := range xs {
				xs[i] = rng.NormFloat64()*10 + 100
			}
			got := Summarize(xs, level)
			wantMed, wantLo, wantHi := ci.SampleCI(mstats.Sample{Xs: xs})
			sorted := slices.Sorted(slices.Values(xs))
			clipped := false
			if math.IsInf(wantLo, -1) {
				wantLo, clipped = sorted[0], true
			}
			if math.IsInf(wantHi, 1) {
				wantHi, clipped = sorted[n-1], true
			}
			if got.Low != wantLo || got.High != wantHi {
				t.Errorf("level %v n=%d: interval [%v, %v], moremath [%v, %v]",
					level, n, got.Low, got.High, wantLo, wantHi)
			}
			if clipped != (len(got.Warnings) > 0) {
				t.Errorf("level %v n=%d: clipped=%v but warnings %q", level, n, clipped, got.Warnings)
			}
			// moremath's median interpolates (R8), which can differ
			// from the mean of the two middle values by rounding.
			if math.Abs(got.Median-wantMed) > 1e-12*math.Abs(wantMed) {
				t.Errorf("level %v n=%d: median %v, moremath %v", level, n, got.Median, wantMed)
			}
			// Up to n = 30 moremath sums the binomial exactly, as we
			// do; above, its Confidence is the normal approximation's.
			if !clipped && n <= medianCIExactLimit && math.Abs(got.Confidence-ci.Confidence) > 1e-9 {
				t.Errorf("level %v n=%d: confidence %v, moremath %v", level, n, got.Confidence, ci.Confidence)
			}
		}
	}
}

// TestMedianCIOrdersMatchMoremathGrid compares the chosen order
// statistics with moremath's on a fine grid of levels, which exercises
// the tie-breaking between equally likely intervals.
func TestMedianCIOrdersMatchMoremathGrid(t *testing.T) {
	for i := 1; i < 1000; i++ {
		level := float64(i) / 1000
		for n := 1; n <= 50; n++ {
			ci := mstats.QuantileCI(n, 0.5, level)
			lo, hi := medianCIOrders(n, level)
			if lo != ci.LoOrder || hi != ci.HiOrder {
				t.Errorf("level %v n=%d: orders [%d, %d], moremath [%d, %d]",
					level, n, lo, hi, ci.LoOrder, ci.HiOrder)
			}
		}
	}
}

// TestSummarizeProperties checks, over random samples, that the interval
// holds the median, its bounds are sample values, its confidence reaches
// the level unless there is a warning, and the input is left alone.
func TestSummarizeProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 2000; iter++ {
		n := 1 + rng.IntN(150)
		level := []float64{0.5, 0.8, 0.9, 0.95, 0.99}[rng.IntN(5)]
		xs := make([]float64, n)
		for i := range xs {
			switch rng.IntN(3) {
			case 0:
				xs[i] = rng.ExpFloat64() * 1e6
			case 1:
				xs[i] = float64(rng.IntN(5)) // many ties
			default:
				xs[i] = rng.NormFloat64()
			}
		}
		in := slices.Clone(xs)
		s := Summarize(in, level)
		if !slices.Equal(in, xs) {
			t.Fatalf("n=%d: Summarize modified its input", n)
		}
		if !(s.Low <= s.Median && s.Median <= s.High) {
			t.Errorf("n=%d level %v: median %v outside [%v, %v]", n, level, s.Median, s.Low, s.High)
		}
		if !slices.Contains(xs, s.Low) || !slices.Contains(xs, s.High) {
			t.Errorf("n=%d level %v: bounds [%v, %v] are not sample values", n, level, s.Low, s.High)
		}
		if !(s.Confidence >= 0 && s.Confidence <= 1) {
			t.Errorf("n=%d level %v: confidence %v", n, level, s.Confidence)
		}
		if len(s.Warnings) == 0 && s.Confidence < level-1e-12 {
			t.Errorf("n=%d level %v: confidence %v below level without a warning", n, level, s.Confidence)
		}
	}
}

func TestMedianCISamples(t *testing.T) {
	tests := []struct {
		level float64
		op    string
		n     int
	}{
		{0.9, ">=", 5},
		{0.95, ">=", 6},
		{0.99, ">=", 8},
		{1, ">", 50},
	}
	for _, tt := range tests {
		op, n := medianCISamples(tt.level)
		if op != tt.op || n != tt.n {
			t.Errorf("medianCISamples(%v) = %s %d, want %s %d", tt.level, op, n, tt.op, tt.n)
		}
	}
}

// checkWarnings checks that warnings is exactly [want], or empty if want
// is "".
func checkWarnings(t *testing.T, warnings []string, want string) {
	t.Helper()
	if want == "" {
		if len(warnings) != 0 {
			t.Errorf("warnings = %q, want none", warnings)
		}
		return
	}
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings = %q, want [%q]", warnings, want)
	}
}

// sameFloat reports whether a and b are equal or both NaN.
func sameFloat(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}
