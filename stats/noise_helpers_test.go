package stats

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readNoise reads testdata/night-noise.txt: real night-to-night deviations of a ratio to ref_js_loop, as
// logarithms of each night's ratio over their median.
func readNoise(t *testing.T) []float64 {
	t.Helper()
	f, err := os.Open("testdata/night-noise.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(line, 64)
		if err != nil {
			t.Fatalf("testdata/night-noise.txt: %v", err)
		}
		out = append(out, v)
	}
	return out
}

// series is n nights of a ratio of 50 with noise drawn from the real deviations, multiplied by 1+step from each
// night that steps names on.
func series(rng *rand.Rand, noise []float64, n int, steps map[int]float64) []float64 {
	xs := make([]float64, n)
	level := 50.0
	for i := range xs {
		if s, ok := steps[i]; ok {
			level *= 1 + s
		}
		xs[i] = level * math.Exp(noise[rng.IntN(len(noise))])
	}
	return xs
}
