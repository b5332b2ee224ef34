package analysis

import (
	"fmt"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/stats"
)

// unstableAdvice is what to do about wide intervals: more processes do not narrow them, since a whole run moves
// with the machine's state (docs/method.md); a quieter machine does, and ×ref, compare and instruction counts do
// not depend on them.
const unstableAdvice = "read ×ref, which moves far less, or use compare or --metric instructions; " +
	"a quieter machine narrows it, more --runs do not (docs/results.md)"

// unstableWarning is one line naming, for each artifact, the cases whose interval of median_ns reaches further than
// th.MaxSpread from the median (stats.Unstable; at most five by name, the widest first), and what to do about it;
// "" when no case is that wide. labels[i] names arts[i] in the line. Artifacts record no such warning: it is judged
// here, from the intervals they keep, whenever they are shown.
func unstableWarning(arts []*artifact.Artifact, labels []string, th stats.StabilityThresholds) string {
	var parts []string
	for i, a := range arts {
		intervals := make([]stats.Prediction, len(a.Cases))
		for j, c := range a.Cases {
			intervals[j] = stats.Prediction{Median: c.MedianNs, Low: c.PILowNs, High: c.PIHighNs, Level: c.PILevel}
		}
		wide := stats.Unstable(intervals, th)
		if len(wide) == 0 {
			continue
		}
		var named []string
		for _, w := range wide[:min(len(wide), 5)] {
			named = append(named, fmt.Sprintf("%s ±%.0f%%", a.Cases[w.Index].Name, 100*w.Spread))
		}
		if more := len(wide) - len(named); more > 0 {
			named = append(named, fmt.Sprintf("%d more", more))
		}
		of := ""
		if labels[i] != "" {
			of = " of " + labels[i]
		}
		parts = append(parts, fmt.Sprintf("%d of %d cases%s (%s)", len(wide), len(a.Cases), of, strings.Join(named, ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("unstable: another run may measure ns/op more than ±%.0f%% away for %s: %s", 100*th.MaxSpread, strings.Join(parts, " and "), unstableAdvice)
}
