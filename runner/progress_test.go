package runner

import "testing"

// The progress line's median is the statistics' median: for an even count, the mean of the middle two, so that the
// progress and the artifact agree.
func TestProgressMedianIsTheMedian(t *testing.T) {
	var got []Event
	s := &osProcess{m: &measurement{Raw: &Raw{notify: func(e Event) { got = append(got, e) }}}}
	s.report(&RawCase{Name: "callback", Ops: []int64{1, 1, 1, 1}, Ns: []int64{40, 10, 30, 20}})
	if len(got) != 1 || got[0].MedianNs != 25 {
		t.Errorf("events %+v, want one with median 25", got)
	}
}
