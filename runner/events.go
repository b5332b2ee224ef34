package runner

// EventKind says what happened in a run.
type EventKind int

// The events a run reports as it goes.
const (
	CaseStarted  EventKind = iota // a case began (set-up and warm-up follow)
	CaseMeasured                  // a case finished with samples
	CaseFailed                    // a case ended without a result
	ProgramDone                   // the program's artifact is written, or its session ended without one
)

// Event is one step of a run, for progress displays. Done counts the cases finished so far, this one included;
// Total counts those asked for.
type Event struct {
	Kind     EventKind
	Target   string
	Case     string
	Done     int
	Total    int
	MedianNs float64 // CaseMeasured: the median ns per op, before timer overhead is removed
	Reason   string  // CaseFailed: why
}
