package bisect

import (
	"errors"
	"slices"
	"testing"
)

// TestSearchFindsEveryCulprit: for every position of the first bad commit in 15 commits, the search names it in at
// most 4 tests, and never tests a commit twice.
func TestSearchFindsEveryCulprit(t *testing.T) {
	for culprit := range 15 {
		tested := map[int]bool{}
		r, err := Search(15, func(i int) (Outcome, error) {
			if tested[i] {
				t.Errorf("culprit %d: commit %d tested twice", culprit, i)
			}
			tested[i] = true
			if i >= culprit {
				return Bad, nil
			}
			return Good, nil
		})
		if err != nil || r.First != culprit || len(r.Steps) > 4 {
			t.Errorf("culprit %d: first %d after %d steps %v (%v)", culprit, r.First, len(r.Steps), r.Steps, err)
		}
	}
}

// TestSearchStepsAroundSkipped: commits that cannot be tested are stepped around; when they hide the culprit, the
// candidates are the commits it may be, as git bisect says "only skipped commits left to test".
func TestSearchStepsAroundSkipped(t *testing.T) {
	for _, tc := range []struct {
		name       string
		culprit    int
		skip       []int
		first      int
		candidates []int
	}{
		{"the middle is skipped", 10, []int{7}, 10, nil},
		{"several skipped", 3, []int{7, 6, 8}, 3, nil},
		{"the culprit is skipped", 5, []int{5}, -1, []int{5, 6}},
		{"the commit before it is skipped", 5, []int{4}, -1, []int{4, 5}},
		{"all skipped", 14, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, -1, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Search(15, func(i int) (Outcome, error) {
				switch {
				case slices.Contains(tc.skip, i):
					return Skip, nil
				case i >= tc.culprit:
					return Bad, nil
				}
				return Good, nil
			})
			if err != nil || r.First != tc.first || !slices.Equal(r.Candidates, tc.candidates) {
				t.Errorf("first %d candidates %v, want %d %v (steps %v, %v)", r.First, r.Candidates, tc.first, tc.candidates, r.Steps, err)
			}
		})
	}
}

func TestSearchEdges(t *testing.T) {
	if r, err := Search(1, func(int) (Outcome, error) { t.Error("tested the bad commit"); return Bad, nil }); err != nil || r.First != 0 || len(r.Steps) != 0 {
		t.Errorf("one commit: %+v %v", r, err)
	}
	if _, err := Search(0, nil); err == nil {
		t.Error("no commits: no error")
	}
	boom := errors.New("the device went away")
	if r, err := Search(8, func(int) (Outcome, error) { return 0, boom }); !errors.Is(err, boom) || r.First != -1 {
		t.Errorf("an error: %+v %v", r, err)
	}
	if o, ok := (Result{Steps: []Step{{3, Skip}}}).Tested(3); !ok || o != Skip || o.String() != "skip" {
		t.Errorf("Tested(3) = %v %v", o, ok)
	}
}
