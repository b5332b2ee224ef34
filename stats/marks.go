package stats

import "math"

// MarkThresholds say when a process of a run did not run in the state the run's other processes ran in, as androidx
// Microbenchmark's ThrottleDetector does with its reference loop.
type MarkThresholds struct {
	// MaxRefSlowdown is how much slower than the run's fastest process a process's reference may run, as a share
	// (0.10: 10% slower), before the process is marked.
	MaxRefSlowdown float64
	// MaxFreqChange is how far, as a share of the start's, the frequency of a process's core may move between the
	// process's start and its end before the process is marked; 0 marks any change.
	MaxFreqChange float64
}

// DefaultMarks are the thresholds a run marks its processes at: a reference 10% slower than the fastest process's,
// as ThrottleDetector's, and any change of the core's frequency.
var DefaultMarks = MarkThresholds{MaxRefSlowdown: 0.10, MaxFreqChange: 0}

// ProcessSpeed is what the rule reads of one process.
type ProcessSpeed struct {
	// RefLeastNs is the least of the process's reference samples (the reference's own and those taken beside every
	// other case): the speed the machine reached in it. 0 when the process took none.
	RefLeastNs float64
	// FreqStartKHz and FreqEndKHz are its core's frequency just before it started and just after it ended; 0 when
	// unknown.
	FreqStartKHz, FreqEndKHz float64
}

// Mark is what the rule found for one process.
type Mark struct {
	// RefRatio is its RefLeastNs over the least of the run's (1 for the fastest); 0 when it has no reference.
	RefRatio float64
	// Slow is true when RefRatio is more than 1 + MaxRefSlowdown.
	Slow bool
	// FreqChanged is true when its core's frequency moved by more than MaxFreqChange between its start and end.
	FreqChanged bool
}

// Marked reports whether the process is marked for either reason.
func (m Mark) Marked() bool { return m.Slow || m.FreqChanged }

// MarkProcesses marks the processes of one run whose reference ran more than th.MaxRefSlowdown slower than the
// fastest process's, or whose core changed frequency between their start and their end. Interference only adds
// time, so each process's least reference sample is the speed it reached; a process that never reached the fastest
// one's speed ran in another state (hot, busy, clocked down), and its ratios with it. It returns one Mark per
// process, in order.
func MarkProcesses(ps []ProcessSpeed, th MarkThresholds) []Mark {
	fastest := math.Inf(1)
	for _, p := range ps {
		if p.RefLeastNs > 0 {
			fastest = min(fastest, p.RefLeastNs)
		}
	}
	marks := make([]Mark, len(ps))
	for i, p := range ps {
		m := &marks[i]
		if p.RefLeastNs > 0 {
			m.RefRatio = p.RefLeastNs / fastest
			m.Slow = m.RefRatio > 1+th.MaxRefSlowdown
		}
		if p.FreqStartKHz > 0 && p.FreqEndKHz > 0 {
			m.FreqChanged = math.Abs(p.FreqEndKHz-p.FreqStartKHz) > th.MaxFreqChange*p.FreqStartKHz
		}
	}
	return marks
}
