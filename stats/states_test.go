package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// spread returns n levels around center whose logs are the normal quantiles of a relative spread sd: one state, as a
// device at one speed gives it, with no randomness.
func spread(center, sd float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		z := distuv.UnitNormal.Quantile((float64(i) + 0.5) / float64(n))
		out[i] = center * math.Exp(sd*z)
	}
	return out
}

// tail returns n levels of one state that only ever runs slower than center: the logs of a half-normal.
func tail(center, sd float64, n int) []float64 {
	out := spread(1, sd, 2*n)[n:]
	for i := range out {
		out[i] *= center
	}
	return out
}

func joined(parts ...[]float64) []float64 {
	var out []float64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestFastestState: the run (process levels of 23-25 ns in five processes and 37-38 ns in the other five,
// every case of them), a continuum of mixed cells between two states, three states, a lone slow process, and one
// state at several widths: the fastest state is the faster cluster, and one state is never cut.
func TestFastestState(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shuffled := func(xs []float64) []float64 {
		rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		return xs
	}
	for _, tc := range []struct {
		name         string
		levels       []float64
		n, nmax      int     // the fastest state holds n to nmax levels
		center, slow float64 // the fastest state's center, and how much slower the slowest level ran
	}{
		{"two states, 5 and 5 processes of 26 cases", joined(spread(24, 0.03, 130), spread(37.5, 0.02, 130)), 130, 130, 24, 1.6},
		{"two states with cells between them", joined(spread(35, 0.03, 150), spread(50, 0.04, 90), []float64{40, 41.5, 42, 43, 44, 45}), 150, 153, 35, 1.6},
		{"three states", joined(spread(20, 0.02, 60), spread(30, 0.02, 60), spread(45, 0.02, 60)), 60, 60, 20, 2.4},
		{"three states, the slowest the largest", joined(spread(20, 0.02, 30), spread(30, 0.02, 60), spread(45, 0.02, 170)), 30, 30, 20, 2.4},
		{"one state with a long tail", tail(30, 0.05, 260), 260, 260, 30.7, 1.15},
		{"one slow cell beside one state", joined(spread(30, 0.03, 259), []float64{45}), 260, 260, 30, 1.5},
		{"one state, 1% wide", spread(30, 0.01, 260), 260, 260, 30, 1.03},
		{"one state, 10% wide", spread(30, 0.10, 260), 260, 260, 30, 1.4},
		{"two clusters 5% apart", joined(spread(30, 0.005, 100), spread(31.5, 0.005, 100)), 200, 200, 30.7, 1.07},
		{"one state of ten processes", spread(30, 0.04, 10), 10, 10, 30, 1.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := FastestState(shuffled(tc.levels), DefaultStates)
			if s.N < tc.n || s.N > tc.nmax || s.Of != len(tc.levels) || s.Split != (s.N < s.Of) {
				t.Errorf("%d of %d levels in the fastest state (split %v), want %d to %d", s.N, s.Of, s.Split, tc.n, tc.nmax)
			}
			if math.Abs(s.Center/tc.center-1) > 0.05 {
				t.Errorf("center %.2f, want about %.2f", s.Center, tc.center)
			}
			slowest := 0.0
			for _, l := range tc.levels {
				slowest = max(slowest, l)
			}
			if got := s.Slower(slowest); math.Abs(got/tc.slow-1) > 0.1 {
				t.Errorf("the slowest level ran %.2fx slower, want about %.2fx", got, tc.slow)
			}
			for _, l := range tc.levels {
				if s.In(l) != (l <= s.Bound) {
					t.Fatalf("In(%v) disagrees with the bound %v", l, s.Bound)
				}
			}
		})
	}
}

// TestFastestStateThresholdsAreData: the thresholds decide, not constants: without a least slowdown the clusters 5%
// apart are two states, and a looser separation cuts one state that the default keeps whole.
func TestFastestStateThresholdsAreData(t *testing.T) {
	near := joined(spread(30, 0.005, 100), spread(31.5, 0.005, 100))
	if s := FastestState(near, StateThresholds{Separation: 2, MinSide: 3}); s.N != 100 {
		t.Errorf("clusters 5%% apart without MinSlowdown: %d in the fastest state, want 100", s.N)
	}
	wide := joined(spread(30, 0.04, 100), spread(34, 0.04, 100))
	if d, loose := FastestState(wide, DefaultStates), FastestState(wide, StateThresholds{Separation: 0.5, MinSide: 3}); d.Split || !loose.Split {
		t.Errorf("overlapping clusters 13%% apart: split %v by default, %v with a separation of 0.5", d.Split, loose.Split)
	}
}

// TestFastestStateHoldsOnAnyCPU: the rule reads the levels' ratios, not their times: a device 100 times faster or
// 1000 times slower splits the same levels alike.
func TestFastestStateHoldsOnAnyCPU(t *testing.T) {
	levels := joined(spread(24, 0.03, 50), spread(37.5, 0.02, 40))
	want := FastestState(levels, DefaultStates)
	for _, scale := range []float64{0.01, 1000} {
		scaled := make([]float64, len(levels))
		for i, l := range levels {
			scaled[i] = l * scale
		}
		got := FastestState(scaled, DefaultStates)
		if got.N != want.N || got.Split != want.Split || math.Abs(got.Center/(want.Center*scale)-1) > 1e-9 {
			t.Errorf("scaled by %v: %+v, want %+v scaled", scale, got, want)
		}
	}
}

// TestFastestStateEdges: nothing to split, and levels that are not positive.
func TestFastestStateEdges(t *testing.T) {
	if s := FastestState(nil, DefaultStates); s.N != 0 || !math.IsNaN(s.Center) || s.In(1) {
		t.Errorf("no levels: %+v", s)
	}
	s := FastestState([]float64{0, -1, math.Inf(1), 10, 10, 10}, DefaultStates)
	if s.N != 3 || s.Of != 3 || math.Abs(s.Center-10) > 1e-9 || !s.In(10) || s.In(0) {
		t.Errorf("three equal levels and three that are not levels: %+v", s)
	}
	// Two slow levels are fewer than MinSide: outliers, not a state. Three are a state.
	two := FastestState(joined(spread(30, 0.02, 20), []float64{50, 51}), DefaultStates)
	three := FastestState(joined(spread(30, 0.02, 20), []float64{50, 51, 52}), DefaultStates)
	if two.N != 22 || three.N != 20 {
		t.Errorf("two slow levels: %d in the fastest state, want 22; three: %d, want 20", two.N, three.N)
	}
}
