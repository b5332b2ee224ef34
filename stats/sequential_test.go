package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sequentialRun draws pairs whose log-ratio is effect plus noise (a normal of sd plus, one pair in ten, a busy spell
// of up to ±20% on either side), looks at them as compare does, and returns the first clear answer and the pairs it
// took, or Unclear after max pairs.
func sequentialRun(rng *rand.Rand, effect, sd, minEffect float64, max int) (Clarity, int) {
	var a, b []float64
	for n := 1; n <= max; n++ {
		d := math.Log1p(effect) + sd*rng.NormFloat64()
		if rng.IntN(10) == 0 {
			d += 0.2 * (2*rng.Float64() - 1)
		}
		a, b = append(a, 1), append(b, math.Exp(d))
		if k, ok := SequentialLook(n); ok {
			c, _, err := SequentialPaired(a, b, k, 0.05, minEffect)
			if err != nil {
				panic(err)
			}
			if c != Unclear {
				return c, n
			}
		}
	}
	return Unclear, max
}

// TestSequentialErrorRates: on synthetic pairs with busy spells, the sequential rule flags no change in at most alpha
// of the A/A runs however long they look (here well under it), calls a change of the minimum effect "same" in at most
// alpha of the runs, finds 10% within the minimum effect of 2% in few pairs, and stops A/A runs as "same" when it can.
func TestSequentialErrorRates(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 6))
	const runs = 400
	count := func(effect, sd, minEffect float64, max int) (map[Clarity]int, int) {
		out, pairs := map[Clarity]int{}, 0
		for range runs {
			c, n := sequentialRun(rng, effect, sd, minEffect, max)
			out[c]++
			pairs += n
		}
		return out, pairs / runs
	}
	aa, aaPairs := count(0, 0.03, 0.02, 400)
	if false1 := aa[ClearWorse] + aa[ClearBetter]; float64(false1) > 0.05*runs {
		t.Errorf("A/A: %d of %d flagged, want at most alpha (%v)", false1, runs, aa)
	}
	if aa[ClearSame] < runs/2 {
		t.Errorf("A/A: %d of %d clear as same within 400 pairs, want most (%v)", aa[ClearSame], runs, aa)
	}
	ab, abPairs := count(0.02, 0.03, 0.02, 400)
	if float64(ab[ClearSame]) > 0.05*runs || ab[ClearWorse] < runs*9/10 {
		t.Errorf("2%% at a minimum effect of 2%%: %v, want at most alpha 'same' and nine in ten found", ab)
	}
	big, bigPairs := count(0.10, 0.03, 0.02, 400)
	if big[ClearWorse] != runs || bigPairs > 30 {
		t.Errorf("10%%: %v in %d pairs on average, want all found within 30", big, bigPairs)
	}
	t.Logf("A/A %v in %d pairs; 2%% %v in %d; 10%% %v in %d", aa, aaPairs, ab, abPairs, big, bigPairs)
}

func TestSequentialLooksAndAlpha(t *testing.T) {
	var looks []int
	for n := range 100 {
		if k, ok := SequentialLook(n); ok {
			if k != len(looks)+1 {
				t.Errorf("pair %d is look %d, want %d", n, k, len(looks)+1)
			}
			looks = append(looks, n)
		}
	}
	if want := []int{8, 12, 18, 27, 41, 62, 93}; !slices.Equal(looks, want) {
		t.Errorf("looks %v, want %v", looks, want)
	}
	sum := 0.0
	for k := 1; k <= 100000; k++ {
		sum += SequentialAlpha(0.05, k)
	}
	if sum > 0.05 || sum < 0.0499 || SequentialAlpha(0.05, 0) != 0 {
		t.Errorf("alpha spent over 100000 looks: %v, want just under 0.05", sum)
	}
}
