package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// ChangePointThresholds are the settings of change-point detection over a series of nights.
type ChangePointThresholds struct {
	// MinSegment is the fewest nights on each side of a change: a change is seen only once that many nights
	// after it were measured.
	MinSegment int
	// Alpha is the significance level of the permutation test of a candidate change.
	Alpha float64
	// Permutations is how many shuffles of a segment the permutation test draws.
	Permutations int
	// Level is the confidence level of a change's interval, which must exclude no change.
	Level float64
	// MinEffect is the least relative shift reported: below it a change is too small to act on.
	MinEffect float64
	// Window is the most nights on each side of a change its size is estimated from: the size is what the change
	// looked like where it happened, not an average over years.
	Window int
	// Seed makes the permutations, and so the result, the same run after run.
	Seed uint64
}

// DefaultChangePointThresholds are the thresholds the history uses; docs/history.md has the measurements they come from.
var DefaultChangePointThresholds = ChangePointThresholds{MinSegment: 6, Alpha: 0.01, Permutations: 199, Level: 0.99,
	MinEffect: 0.03, Window: 30, Seed: 1}

// ChangePoint is one shift in a series: the segment from Index on differs from the one before it.
type ChangePoint struct {
	// Index is the first point of the new level.
	Index int
	// Before and After are the medians of the points on each side (within the window).
	Before, After float64
	// Shift is the relative change, after over before less one (the Hodges-Lehmann estimate of the shift of the
	// logarithms), and Low and High its interval at the thresholds' level; all three are equal for an exact series.
	Shift, Low, High float64
	// P is the permutation test's p-value; 0 for an exact series.
	P float64
}

// ChangePoints finds the shifts in a series of positive measurements, one per night, by E-divisive means
// (Matteson and James, 2014, with the divergence's exponent 1) as MongoDB's CI and Apache Otava use it: the split
// of a segment that maximises the energy distance between its two sides, kept when a permutation test finds it
// significant, then each side split again until no split is. The test runs on logarithms, so that a change is
// relative, after a Hampel filter that clips a night far off its neighbours (a busy machine's night would otherwise
// weigh like a change); each kept change must also have an interval that excludes no change and a size of at least
// MinEffect. The permutations are drawn from a generator seeded by th.Seed and the segment, so the result does not
// depend on the order segments are tested in.
func ChangePoints(xs []float64, th ChangePointThresholds) []ChangePoint {
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = math.Log(x)
	}
	ys = hampel(ys, hampelK)
	var found []int
	pAt := map[int]float64{}
	todo := [][2]int{{0, len(ys)}}
	for len(todo) > 0 {
		seg := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		tau, p := bestSplit(ys, seg[0], seg[1], th)
		if p > th.Alpha {
			continue
		}
		cp := describeChange(ys, seg[0], tau, seg[1], th)
		if !keep(cp, th) {
			continue
		}
		found, pAt[tau] = append(found, tau), p
		todo = append(todo, [2]int{seg[0], tau}, [2]int{tau, seg[1]})
	}
	slices.Sort(found)
	out := make([]ChangePoint, 0, len(found))
	for i, tau := range found {
		lo, hi := 0, len(ys)
		if i > 0 {
			lo = found[i-1]
		}
		if i+1 < len(found) {
			hi = found[i+1]
		}
		cp := describeChange(ys, lo, tau, hi, th)
		cp.P = pAt[tau]
		out = append(out, cp)
	}
	return out
}

// keep says whether a significant candidate is a change: its interval excludes no change, and it is large enough.
func keep(cp ChangePoint, th ChangePointThresholds) bool {
	return (cp.Low > 0 || cp.High < 0) && math.Abs(cp.Shift) >= th.MinEffect
}

// bestSplit returns the most likely change in ys[s:e] and the permutation test's p-value for it; 1 when the
// segment is too short to split.
func bestSplit(ys []float64, s, e int, th ChangePointThresholds) (int, float64) {
	if e-s < 2*th.MinSegment {
		return 0, 1
	}
	d := newDivergence(ys[s:e])
	tau, q := d.best(th.MinSegment)
	if tau < 0 || !(q > 0) {
		return 0, 1
	}
	return s + tau, permutationP(d, q, s, e, th)
}

// permutationP is the share of shuffles of the segment whose best split is at least q, counting the segment itself.
// It stops early once the share can no longer fall to Alpha: most segments without a change take a few shuffles.
func permutationP(d *divergence, q float64, s, e int, th ChangePointThresholds) float64 {
	rng := rand.New(rand.NewPCG(th.Seed, uint64(s)<<32|uint64(e)))
	limit := int(th.Alpha * float64(th.Permutations+1)) // more exceedances than this and p > Alpha
	exceed := 0
	for i := 1; i <= th.Permutations; i++ {
		d.shuffle(rng)
		if _, pq := d.best(th.MinSegment); pq >= q {
			exceed++
			if exceed > limit {
				return float64(exceed+1) / float64(i+1)
			}
		}
	}
	return float64(exceed+1) / float64(th.Permutations+1)
}

// divergence computes the E-divisive statistic of every split of one segment in O(n log n): the sums of distances
// within each side and between them, updated as one point at a time moves from the right side to the left, with
// Fenwick trees over the points' ranks giving each point's summed distance to a side.
type divergence struct {
	vals  []float64 // the segment, in its current order
	ranks []int     // each value's rank among the segment's values
	total float64   // the sum of distances over all pairs
	left  fenwick
	right fenwick
}

func newDivergence(seg []float64) *divergence {
	n := len(seg)
	d := &divergence{vals: slices.Clone(seg), ranks: make([]int, n), left: newFenwick(n), right: newFenwick(n)}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(seg[a], seg[b]) })
	for r, i := range order {
		d.ranks[i] = r
	}
	for r, i := range order {
		d.total += d.vals[i] * float64(2*r-n+1) // each sorted value less every smaller one, plus every larger one less it
	}
	return d
}

// shuffle permutes the segment's values, keeping each with its rank.
func (d *divergence) shuffle(rng *rand.Rand) {
	rng.Shuffle(len(d.vals), func(i, j int) {
		d.vals[i], d.vals[j] = d.vals[j], d.vals[i]
		d.ranks[i], d.ranks[j] = d.ranks[j], d.ranks[i]
	})
}

// best returns the split (the first index of the right side) with the largest statistic, with both sides at least
// minSeg long, and that statistic; -1 when the segment is too short.
func (d *divergence) best(minSeg int) (int, float64) {
	n := len(d.vals)
	d.left.reset()
	d.right.reset()
	for i, v := range d.vals {
		d.right.update(d.ranks[i], v, 1)
	}
	within := [2]float64{0, d.total} // left, right
	bestTau, bestQ := -1, math.Inf(-1)
	for t := 0; t < n-minSeg; t++ {
		v, r := d.vals[t], d.ranks[t]
		d.right.update(r, -v, -1)
		within[1] -= d.right.distance(r, v)
		within[0] += d.left.distance(r, v)
		d.left.update(r, v, 1)
		m, k := float64(t+1), float64(n-t-1)
		if t+1 < minSeg || m < 2 || k < 2 {
			continue
		}
		between := d.total - within[0] - within[1]
		q := m * k / (m + k) * (2*between/(m*k) - 2*within[0]/(m*(m-1)) - 2*within[1]/(k*(k-1)))
		if q > bestQ {
			bestTau, bestQ = t+1, q
		}
	}
	return bestTau, bestQ
}

// fenwick holds a set of values by rank: how many there are and their sum, at or below any rank.
type fenwick struct {
	n      []int
	sum    []float64
	allN   int
	allSum float64
}

func newFenwick(size int) fenwick {
	return fenwick{n: make([]int, size+1), sum: make([]float64, size+1)}
}

func (f *fenwick) reset() {
	clear(f.n)
	clear(f.sum)
	f.allN, f.allSum = 0, 0
}

// update adds v to the sum and c to the count at rank r: (v, 1) puts a value in, (-v, -1) takes it out.
func (f *fenwick) update(r int, v float64, c int) {
	f.allSum, f.allN = f.allSum+v, f.allN+c
	for i := r + 1; i < len(f.sum); i += i & -i {
		f.sum[i] += v
		f.n[i] += c
	}
}

// distance is the sum of |v - x| over the set's values x, v being the value of rank r.
func (f *fenwick) distance(r int, v float64) float64 {
	n, s := 0, 0.0
	for i := r + 1; i > 0; i -= i & -i {
		n += f.n[i]
		s += f.sum[i]
	}
	return (v*float64(n) - s) + (f.allSum - s - v*float64(f.allN-n))
}

// describeChange measures the change at tau between the segments [lo, tau) and [tau, hi) of the logarithms ys,
// within th.Window points of tau: the medians each side, and the Hodges-Lehmann shift with its distribution-free
// interval (from the Mann-Whitney statistic's distribution, by its normal approximation).
func describeChange(ys []float64, lo, tau, hi int, th ChangePointThresholds) ChangePoint {
	before := ys[max(lo, tau-th.Window):tau]
	after := ys[tau:min(hi, tau+th.Window)]
	diffs := make([]float64, 0, len(before)*len(after))
	for _, a := range after {
		for _, b := range before {
			diffs = append(diffs, a-b)
		}
	}
	slices.Sort(diffs)
	m, n := float64(len(before)), float64(len(after))
	z := distuv.UnitNormal.Quantile(1 - (1-th.Level)/2)
	c := int(math.Floor(m*n/2 - z*math.Sqrt(m*n*(m+n+1)/12)))
	c = max(0, min(c, len(diffs)/2))
	shift := Median(diffs)
	return ChangePoint{Index: tau, Before: math.Exp(Median(before)), After: math.Exp(Median(after)),
		Shift: math.Expm1(shift), Low: math.Expm1(diffs[c]), High: math.Expm1(diffs[len(diffs)-1-c])}
}

// ExactChanges finds the changes in a series that repeats exactly when nothing changed (instruction or allocation
// counts): every point that differs from the one before by more than tolerance, relative to the larger. A count
// that grows from 0 has a Shift of 1 (Before and After say what it was).
func ExactChanges(xs []float64, tolerance float64) []ChangePoint {
	var out []ChangePoint
	for i := 1; i < len(xs); i++ {
		a, b := xs[i-1], xs[i]
		if !(math.Abs(b-a) > tolerance*max(math.Abs(a), math.Abs(b))) {
			continue
		}
		r := 1.0
		if a != 0 {
			r = b/a - 1
		}
		out = append(out, ChangePoint{Index: i, Before: a, After: b, Shift: r, Low: r, High: r})
	}
	return out
}

// NightNoise is the night-to-night spread of a series of positive measurements when nothing changed: the robust
// standard deviation (1.4826 times the median absolute deviation) of the logarithms about their segment's median,
// the segments being those between the changes. It is relative: 0.02 is about 2%. NaN with fewer than 3 points.
func NightNoise(xs []float64, changes []ChangePoint) float64 {
	if len(xs) < 3 {
		return math.NaN()
	}
	var dev []float64
	start := 0
	for i := 0; i <= len(changes); i++ {
		end := len(xs)
		if i < len(changes) {
			end = changes[i].Index
		}
		logs := make([]float64, 0, end-start)
		for _, x := range xs[start:end] {
			logs = append(logs, math.Log(x))
		}
		mid := Median(logs)
		for _, l := range logs {
			dev = append(dev, math.Abs(l-mid))
		}
		start = end
	}
	return 1.4826 * Median(dev)
}

// visibleFactor is how many times a series' noise, per unit of sqrt(2/MinSegment), a step must be for ChangePoints
// to find it in 95 of 100 series once MinSegment nights after it were measured (docs/history.md).
const visibleFactor = 5.0

// SmallestVisible is the least relative change that ChangePoints finds in 95 of 100 series with night-to-night
// noise noise (NightNoise), once MinSegment nights after it were measured; never less than MinEffect.
func SmallestVisible(noise float64, th ChangePointThresholds) float64 {
	return max(th.MinEffect, math.Expm1(visibleFactor*noise*math.Sqrt(2/float64(th.MinSegment))))
}

// hampelK is how many robust standard deviations from its neighbours' median a night may be before it is clipped.
const hampelK = 3

// hampel clips each point to within k robust standard deviations of the median of the five points around it: a
// night far off its neighbours (a machine that was busy) weighs no more than a night at k sigma, and a step, which
// the neighbours' median follows, is kept whole. Sigma is from the differences of consecutive nights, which a step
// changes only once.
func hampel(ys []float64, k float64) []float64 {
	if len(ys) < 5 {
		return ys
	}
	diffs := make([]float64, 0, len(ys)-1)
	for i := 1; i < len(ys); i++ {
		diffs = append(diffs, math.Abs(ys[i]-ys[i-1]))
	}
	sigma := 1.4826 * Median(diffs) / math.Sqrt2
	out := make([]float64, len(ys))
	for i := range ys {
		lo, hi := max(0, i-2), min(len(ys), i+3)
		mid := Median(ys[lo:hi])
		out[i] = min(max(ys[i], mid-k*sigma), mid+k*sigma)
	}
	return out
}
