package stats

import "slices"

// StateShiftThresholds say when two runs on one device did not run at one speed.
type StateShiftThresholds struct {
	// MaxRatio is how far apart, as a ratio, the least reference samples of two runs may be before one of them is
	// taken never to have run at the other's speed.
	MaxRatio float64
}

// DefaultStateShift is the threshold show and the gate warn at: 1.25x (docs/gate.md says how it was chosen).
var DefaultStateShift = StateShiftThresholds{MaxRatio: 1.25}

// Shift is the result of StateShift.
type Shift struct {
	// LeastA and LeastB are the least reference sample of each run; both 0 when either run has none.
	LeastA, LeastB float64
	// Shifted is true when they are more than MaxRatio apart: the slower run never reached the other's speed, and in
	// a state that slow the ratios to the reference change too (docs/gate.md), so comparing the two runs' ratios can
	// show a change that is not there or hide one that is.
	Shifted bool
}

// StateShift compares the reference samples of two runs of one device (refA and refB) by their least values. The
// caller decides that they come from one device: on two, their speeds differ for other reasons.
func StateShift(refA, refB []float64, th StateShiftThresholds) Shift {
	if len(refA) == 0 || len(refB) == 0 {
		return Shift{}
	}
	s := Shift{LeastA: slices.Min(refA), LeastB: slices.Min(refB)}
	s.Shifted = s.LeastA > 0 && s.LeastB > 0 && max(s.LeastA/s.LeastB, s.LeastB/s.LeastA) > th.MaxRatio
	return s
}
