package analysis

// Kind says what a Warning is about, so that a view chooses warnings by kind, never by their text.
type Kind string

// Kinds of warning. The first ones concern the comparison of the artifacts (Warning.Artifact is empty); the others
// one artifact.
const (
	// Origin: a column's artifact comes from another device, engine or build than the first's.
	Origin Kind = "origin"
	// StateShift: two runs of one device never ran at one speed (stats.StateShift).
	StateShift Kind = "state-shift"
	// NoInterval: cases whose interval could not be computed (too few processes).
	NoInterval Kind = "no-interval"
	// Unstable: cases whose interval of ns/op is wider than stats.DefaultStability allows.
	Unstable Kind = "unstable"
	// Emulated: the artifact was measured under an emulator.
	Emulated Kind = "emulated"
	// Incomplete: the run stopped before every case was measured.
	Incomplete Kind = "incomplete"
	// CaseFailed: a case crashed or erred.
	CaseFailed Kind = "case-failed"
	// Marked: some processes ran in another state than the others (artifact.MarkedNote).
	Marked Kind = "marked"
	// Recorded: a warning the artifact itself records (its Warnings), that the analysis does not compute again.
	Recorded Kind = "recorded"
	// NoiseNote: what the device's history says its nightly can see.
	NoiseNote Kind = "noise"
	// UnderMinimum: a significant change smaller than the minimum effect, which is therefore no change that counts.
	UnderMinimum Kind = "under-minimum"
	// NoComparison: a column could not be compared with the first at all (the error says why).
	NoComparison Kind = "no-comparison"
	// Sides: which artifacts a gate compares, when their labels differ.
	Sides Kind = "sides"
	// Speed: how fast ref_js_loop ran in each run, the machine's speed that every ratio divides out.
	Speed Kind = "speed"
	// NotJudged: why a comparison judged nothing, and what would judge it.
	NotJudged Kind = "not-judged"
	// Confirmation: how --confirm reran the flagged cases, or why it did not.
	Confirmation Kind = "confirmation"
	// Unmatched: an artifact without its counterpart on the other side of a gate (Match): not gated.
	Unmatched Kind = "unmatched"
	// Engines: the table holds artifacts of several engines, each ×ref over its own ref_js_loop.
	Engines Kind = "engines"
	// Sequential: how compare's sequential rounds (--budget) ended, and the alpha of the look that judged them.
	Sequential Kind = "sequential"
	// NewRegression: a change of a history that the newest nights made visible, a regression the code caused that
	// nobody acknowledged: it fails history changes --fail-new (History.Warnings).
	NewRegression Kind = "new-regression"
)

// IsWarning reports whether a warning of kind k limits the comparison itself: the views open its line with
// "warning: ".
func (k Kind) IsWarning() bool {
	switch k {
	case Origin, StateShift, NoInterval, Unstable, Marked:
		return true
	}
	return false
}

// Warning is one line a view shows under a table or a comparison: what limits the comparison, or what a reader must
// know about one artifact.
type Warning struct {
	Kind Kind `json:"kind"`
	// Artifact is the label (or file) of the artifact it concerns; empty when it concerns the comparison as a whole.
	Artifact string `json:"artifact,omitempty"`
	Text     string `json:"text"`
}

// String is the line as the views print it: "[warning: ][ARTIFACT: ]TEXT", the prefix for kinds that IsWarning.
func (w Warning) String() string {
	s := w.Text
	if w.Artifact != "" {
		s = w.Artifact + ": " + s
	}
	if w.Kind.IsWarning() {
		s = "warning: " + s
	}
	return s
}
