package runner

import (
	"strings"
	"testing"
)

// TestGrammar: the order of a run's records, as the runner reads it and check judges it: each sequence of records
// (after the first line) breaks at the record named, with the words given, or not at all.
func TestGrammar(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version int
		records string // kind/case, one per record
		want    string // "" for none; else the break, "N: words"
	}{
		{"a case", 2, "meta/ timer_overhead_ns/ cpu/ begin/a calibrated/a ref/a sample/a memory/a end/a rss/", ""},
		{"two cases and an error", 2, "begin/a sample/a end/a error/b begin/c end/c", ""},
		{"an error inside its case ends it", 1, "begin/a error/a end/a begin/b end/b", ""},
		{"not asked for", 2, "begin/x", "0: case \"x\" was not asked for"},
		{"ref in protocol 1", 1, "begin/a ref/a", "1: a ref record in protocol 1: it is protocol 2's"},
		{"slowdown in protocol 1", 1, "begin/a slowdown/a", "1: a slowdown record in protocol 1"},
		{"the header again", 2, "begin/a bench-bridge-protocol/", "1: the protocol header again"},
		{"a loop record", 2, "loop/a", "0: a loop record in run mode"},
		{"begin inside a case", 2, "begin/a begin/b", "1: begin b inside case a, which has not ended"},
		{"begun again", 2, "begin/a end/a begin/a", "2: case a begun again after its end"},
		{"a sample outside", 2, "begin/a end/a sample/a", "2: sample outside its case"},
		{"a sample of another case", 2, "begin/a sample/b", "1: sample outside its case (after begin b"},
		{"an error after the end", 2, "begin/a end/a error/a", "2: error for case a after its end"},
		{"an error inside another case", 2, "begin/a error/b", "1: error for case b inside case a"},
		{"an end without its begin", 2, "end/a", "0: end of a case that did not begin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := Grammar{Want: []string{"a", "b", "c"}, Version: tc.version}
			got := ""
			for i, rec := range strings.Fields(tc.records) {
				kind, name, _ := strings.Cut(rec, "/")
				if err := g.Next(kind, name); err != nil {
					got = strings.Join([]string{string(rune('0' + i)), err.Error()}, ": ")
					break
				}
			}
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if tc.want == "" && g.Current() != "" {
				t.Errorf("case %s still current at the end", g.Current())
			}
		})
	}
}
