package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
)

// rawCase is a case with n samples of 10 ops each.
func rawCase(name string, n int) RawCase {
	c := RawCase{Name: name, Iterations: 10}
	for i := range n {
		c.Ops, c.Ns = append(c.Ops, 10), append(c.Ns, int64(1000+10*i))
	}
	return c
}

func intervalWarningsOf(a *artifact.Artifact) []string {
	var out []string
	for _, w := range a.Warnings {
		if strings.Contains(w, "confidence interval") {
			out = append(out, w)
		}
	}
	return out
}

// With fewer samples than a 95% interval needs, every case gets the same warning: the artifact says it once, with
// the count, instead of once per case.
func TestTooFewSamplesIsOneWarning(t *testing.T) {
	names := cases.Names()
	raw := &Raw{}
	for _, name := range names {
		raw.Cases = append(raw.Cases, rawCase(name, 5))
	}
	a := &artifact.Artifact{}
	Assemble(a, raw, names)
	want := fmt.Sprintf("%d cases have 5 samples: need >= 6 samples for confidence interval at level 0.95", len(names))
	if got := intervalWarningsOf(a); len(got) != 1 || got[0] != want {
		t.Errorf("interval warnings %q, want one: %q", got, want)
	}

	// Only one case short of samples: it is named.
	raw = &Raw{Cases: []RawCase{rawCase(names[0], 9), rawCase(names[1], 3)}}
	a = &artifact.Artifact{}
	Assemble(a, raw, names[:2])
	want = names[1] + " has 3 samples: need >= 6 samples for confidence interval at level 0.95"
	if got := intervalWarningsOf(a); len(got) != 1 || got[0] != want {
		t.Errorf("interval warnings %q, want one: %q", got, want)
	}
}

// The progress line's median is the statistics' median: for an even count, the mean of the middle two (it was the
// upper one), so that the progress and the artifact agree.
func TestProgressMedianIsTheMedian(t *testing.T) {
	var got []Event
	s := &session{raw: &Raw{notify: func(e Event) { got = append(got, e) }}}
	s.report(&RawCase{Name: "callback", Ops: []int64{1, 1, 1, 1}, Ns: []int64{40, 10, 30, 20}})
	if len(got) != 1 || got[0].MedianNs != 25 {
		t.Errorf("events %+v, want one with median 25", got)
	}
}
