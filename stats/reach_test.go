package stats

import (
	"math"
	"testing"
)

func TestLeastUP(t *testing.T) {
	// The least two-sided p of n1 and n2 distinct values is 2/C(n1+n2, n1).
	tests := []struct {
		n1, n2 int
		want   float64
	}{
		{0, 5, 1}, {1, 1, 1}, {2, 2, 1.0 / 3}, {3, 3, 0.1}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {3, 5, 2.0 / 56},
		{12, 1, 2.0 / 13}, {1, 12, 2.0 / 13},
	}
	for _, tt := range tests {
		if got := LeastUP(tt.n1, tt.n2); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("LeastUP(%d, %d) = %v, want %v", tt.n1, tt.n2, got, tt.want)
		}
	}
	// What the U test itself gives two fully separated samples is that least p.
	for n := 1; n <= 8; n++ {
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i], b[i] = float64(i), float64(100+i)
		}
		p, err := MannWhitneyU(a, b)
		if err != nil || math.Abs(p-LeastUP(n, n)) > 1e-9 {
			t.Errorf("n=%d: U test of separated samples p=%v (%v), LeastUP %v", n, p, err, LeastUP(n, n))
		}
	}
}

func TestNeeds(t *testing.T) {
	tests := []struct {
		alpha              float64
		u, sign, sequenced int
	}{
		{0.1, 3, 5, 6},
		{0.05, 4, 6, 7},
		{2.0 / 70, 4, 7, 8},
		{0.01, 5, 8, 11},
		{0.005, 6, 9, 12},
		{1, 0, 0, 0}, // not a significance level
	}
	for _, tt := range tests {
		if got := UTestNeeds(tt.alpha); got != tt.u {
			t.Errorf("UTestNeeds(%v) = %d, want %d", tt.alpha, got, tt.u)
		}
		if got := SignTestNeeds(tt.alpha); got != tt.sign {
			t.Errorf("SignTestNeeds(%v) = %d, want %d", tt.alpha, got, tt.sign)
		}
		if got := SequentialNeeds(tt.alpha); got != tt.sequenced {
			t.Errorf("SequentialNeeds(%v) = %d, want %d", tt.alpha, got, tt.sequenced)
		}
		if n := UTestNeeds(tt.alpha); n > 1 && Significant(LeastUP(n-1, n-1), tt.alpha) {
			t.Errorf("UTestNeeds(%v) = %d, but %d a side reach it", tt.alpha, n, n-1)
		}
	}
}

func TestChangePointNeeds(t *testing.T) {
	th := DefaultChangePointThresholds
	if got := ChangePointNeeds(th); got != 2*th.MinSegment {
		t.Errorf("ChangePointNeeds(default) = %d, want %d", got, 2*th.MinSegment)
	}
	th.Alpha = 0.001 // 199 shuffles: the least p is 0.005
	if got := ChangePointNeeds(th); got != 0 {
		t.Errorf("ChangePointNeeds at alpha 0.001 with 199 shuffles = %d, want 0 (never)", got)
	}
}

func TestSequentialEndLook(t *testing.T) {
	// Looks come at 8, 12, 18, 27 pairs; a session ending between them takes one more look of its own.
	for n, want := range map[int]int{1: 1, 7: 1, 8: 1, 9: 2, 12: 2, 13: 3, 18: 3, 20: 4, 27: 4} {
		if got := SequentialEndLook(n); got != want {
			t.Errorf("SequentialEndLook(%d) = %d, want %d", n, got, want)
		}
	}
}
