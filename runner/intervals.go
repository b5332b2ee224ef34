package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/stats"
)

// intervalWarnings gathers the warnings of the cases' summaries so that a warning every case shares ("need >= 6
// samples for confidence interval at level 0.95" with 5 samples a case) becomes one line naming the count, not one
// line per case.
type intervalWarnings struct {
	order []string
	cases map[string][]string
}

// add records the warnings of the summary s of case name.
func (w *intervalWarnings) add(name string, s stats.Summary) {
	if w.cases == nil {
		w.cases = map[string][]string{}
	}
	for _, text := range s.Warnings {
		key := fmt.Sprintf("%d %s: %s", s.N, plural(s.N, "sample", "samples"), text)
		if !slices.Contains(w.order, key) {
			w.order = append(w.order, key)
		}
		w.cases[key] = append(w.cases[key], name)
	}
}

// lines is one line per distinct warning: "14 cases have 5 samples: need >= 6 samples for ...", naming the cases
// when there are a few.
func (w *intervalWarnings) lines() []string {
	var out []string
	for _, key := range w.order {
		names := w.cases[key]
		who := names[0] + " has"
		switch {
		case len(names) > 3:
			who = fmt.Sprintf("%d cases have", len(names))
		case len(names) > 1:
			who = strings.Join(names, ", ") + " have"
		}
		out = append(out, who+" "+key)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
