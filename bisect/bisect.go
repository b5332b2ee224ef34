// Package bisect finds the first bad commit of a range by testing as few commits as it can: a binary search over
// the commits between a good and a bad one that steps around commits that cannot be tested, as `git bisect skip` does.
// It only searches; what makes a commit bad is the caller's test.
package bisect

import "errors"

// Outcome is what testing one commit found.
type Outcome int

// Outcomes of a test.
const (
	Good Outcome = iota // not slower than the good commit by more than the threshold
	Bad                 // slower
	Skip                // cannot be tested (it does not build): the search steps around it
)

func (o Outcome) String() string {
	return [...]string{"good", "bad", "skip"}[o]
}

// Step is one tested commit: its index in the range and what the test found.
type Step struct {
	Index   int
	Outcome Outcome
}

// Result is where the search ended.
type Result struct {
	// First is the index of the first bad commit, or -1 when skipped commits hide it; then Candidates are the
	// indices it may be, in order.
	First      int
	Candidates []int
	Steps      []Step
}

// Tested reports whether the commit at index i was tested, and what it was found.
func (r Result) Tested(i int) (Outcome, bool) {
	for _, s := range r.Steps {
		if s.Index == i {
			return s.Outcome, true
		}
	}
	return 0, false
}

// Search finds the first bad one of n commits, oldest first, after a good commit: the last, n-1, is taken as bad
// without testing it (the caller said so), so that n commits need about log2(n) tests. test is called once per
// commit it probes; an error stops the search and is returned with the steps so far.
func Search(n int, test func(i int) (Outcome, error)) (Result, error) {
	r := Result{First: -1}
	if n <= 0 {
		return r, errors.New("no commits between the good and the bad one")
	}
	lo, hi := 0, n-1 // the first bad one is in [lo, hi]; hi is bad
	skipped := map[int]bool{}
	for lo < hi {
		mid, ok := probe(lo, hi, skipped)
		if !ok {
			for i := lo; i <= hi; i++ {
				r.Candidates = append(r.Candidates, i)
			}
			return r, nil
		}
		out, err := test(mid)
		if err != nil {
			return r, err
		}
		r.Steps = append(r.Steps, Step{mid, out})
		switch out {
		case Bad:
			hi = mid
		case Good:
			lo = mid + 1
		default:
			skipped[mid] = true
		}
	}
	r.First = hi
	return r, nil
}

// probe is the untested, unskipped commit in [lo, hi) nearest the middle, or false when every one is skipped.
func probe(lo, hi int, skipped map[int]bool) (int, bool) {
	mid := (lo + hi) / 2
	for d := 0; mid-d >= lo || mid+d < hi; d++ {
		if i := mid - d; i >= lo && !skipped[i] {
			return i, true
		}
		if i := mid + d; i < hi && !skipped[i] {
			return i, true
		}
	}
	return 0, false
}
