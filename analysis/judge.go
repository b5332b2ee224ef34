package analysis

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// Metrics the gate compares.
const (
	Time         = "time"
	Instructions = "instructions"
	// Allocations compares allocations per op (engine and host, the memory pass's exact counts): no statistics, and
	// an absolute threshold, since a baseline of 0 allocations has no relative change.
	Allocations = "allocations"
)

// Metrics lists the metrics the gate compares.
var Metrics = []string{Time, Instructions, Allocations}

// Defaults of Options; the significance level is stats.DefaultAlpha, the one show uses too.
const (
	DefaultMinEffect             = 0.10
	DefaultInstructionsThreshold = 0.01
	// DefaultAllocationsThreshold: the same binary counts the same allocations in every process, so any growth is
	// the program's.
	DefaultAllocationsThreshold = 0
)

// Options are the gate's thresholds (the config's [gate] section converts into them).
type Options struct {
	Metric                string
	Alpha                 float64
	MinEffect             float64
	InstructionsThreshold float64
	// AllocationsThreshold is the least growth in allocations per op that counts, absolute (0: any growth).
	AllocationsThreshold float64
	Cases                map[string]CaseOptions
	Guards               []Guard
	// AllowMissing lets a case measured on one side only pass; by default it fails the gate, since it is not guarded.
	AllowMissing bool
	// AcrossOrigins judges by time artifacts of different devices, engines or builds; by default their time
	// verdicts are withheld, since ×ref itself moves between CPUs and compilers.
	AcrossOrigins bool
	// Noise, when set, is what the current device's history says about each case: a case whose smallest visible
	// change there is larger than its threshold is "cannot see", not "same".
	Noise *Noise
	// Sequential, when set, says the pairs were taken by compare's sequential rule (--budget) and where it ended
	// (SequentialOptions): a case whose answer was not clear at the last look is Undecided, never "same".
	Sequential *SequentialEnd
}

// SequentialEnd is where compare's sequential rule ended its rounds: the last look, the alpha the looks share, and
// the budget they had.
type SequentialEnd struct {
	Look   int
	Alpha  float64
	Budget string
}

// Noise is a device's night-to-night noise from its history.
type Noise struct {
	Device string
	// Visible is the least relative change the nightly can see per case on the device.
	Visible map[string]float64
}

// CaseOptions override the gate's thresholds for one case; zero leaves the gate's own.
type CaseOptions struct {
	MinEffect             float64
	InstructionsThreshold float64
	AllocationsThreshold  float64
	// Skip leaves the case out of the gate (still shown).
	Skip bool
}

// Guard is an absolute bound: Case's ratio to ref_js_loop must stay at most MaxRatioToRef, in every current artifact
// (or those of Target and Codec, when set).
type Guard struct {
	Case          string
	MaxRatioToRef float64
	Target        string
	Codec         string
}

// WithDefaults returns o with the defaults filled in where it leaves a setting at zero.
func (o Options) WithDefaults() Options {
	if o.Metric == "" {
		o.Metric = Time
	}
	if o.Alpha == 0 {
		o.Alpha = stats.DefaultAlpha
	}
	if o.MinEffect == 0 {
		o.MinEffect = DefaultMinEffect
	}
	if o.InstructionsThreshold == 0 {
		o.InstructionsThreshold = DefaultInstructionsThreshold
	}
	return o
}

// Check refuses thresholds that would switch the gate off (a NaN alpha finds nothing significant, an infinite
// minimum effect nothing large enough), naming the option. The command and the config check their own spellings of
// them first; this is the gate's own guard.
func (o Options) Check() error {
	if err := stats.CheckAlpha(o.Alpha); err != nil {
		return fmt.Errorf("gate: alpha %v: %w", o.Alpha, err)
	}
	if err := stats.CheckEffect(o.MinEffect); err != nil {
		return fmt.Errorf("gate: minimum effect %v: %w", o.MinEffect, err)
	}
	if err := stats.CheckEffect(o.InstructionsThreshold); err != nil {
		return fmt.Errorf("gate: instructions threshold %v: %w", o.InstructionsThreshold, err)
	}
	if err := stats.CheckEffect(o.AllocationsThreshold); err != nil {
		return fmt.Errorf("gate: allocations threshold %v: %w", o.AllocationsThreshold, err)
	}
	for _, name := range slices.Sorted(maps.Keys(o.Cases)) {
		c := o.Cases[name]
		if err := stats.CheckEffect(c.MinEffect); err != nil {
			return fmt.Errorf("gate: minimum effect of %s %v: %w", name, c.MinEffect, err)
		}
		if err := stats.CheckEffect(c.InstructionsThreshold); err != nil {
			return fmt.Errorf("gate: instructions threshold of %s %v: %w", name, c.InstructionsThreshold, err)
		}
		if err := stats.CheckEffect(c.AllocationsThreshold); err != nil {
			return fmt.Errorf("gate: allocations threshold of %s %v: %w", name, c.AllocationsThreshold, err)
		}
	}
	return nil
}

// threshold is the least relative change that counts for name under the metric.
func (o Options) threshold(name string) float64 {
	c := o.Cases[name]
	if o.Metric == Allocations {
		if c.AllocationsThreshold > 0 {
			return c.AllocationsThreshold
		}
		return o.AllocationsThreshold
	}
	if o.Metric == Instructions {
		if c.InstructionsThreshold > 0 {
			return c.InstructionsThreshold
		}
		return o.InstructionsThreshold
	}
	if c.MinEffect > 0 {
		return c.MinEffect
	}
	return o.MinEffect
}

// Verdict is what the gate says about one case.
type Verdict string

// Verdicts. Regressed and Failed fail the gate; the others do not.
const (
	Same        Verdict = "same"        // no change larger than the threshold, or not a significant one
	Improved    Verdict = "improved"    // significantly better by more than the threshold
	Regressed   Verdict = "regressed"   // significantly worse by more than the threshold
	Unconfirmed Verdict = "unconfirmed" // regressed, but the rerun did not confirm it
	Failed      Verdict = "failed"      // measured in the baseline, failed in the current run
	Missing     Verdict = "missing"     // not in both artifacts (or no instruction counts): fails unless allowed
	Unseen      Verdict = "cannot see"  // no significant change, and the device's noise hides one of the threshold
	Unjudged    Verdict = "not judged"  // different origins (×ref moves with the CPU and the compiler), or a test too small for its alpha
	Undecided   Verdict = "undecided"   // compare's sequential rule had no clear answer when its rounds ended: fails
	Skipped     Verdict = "skipped"     // left out by the config
)

// CaseResult is one case's comparison. Baseline and Current are the case's ratio to ref_js_loop: the ratio of medians
// for time, of instructions per op for instructions; for allocations they are allocations per op, and Change is
// Current - Baseline.
type CaseResult struct {
	Case     string   `json:"case"`
	Verdict  Verdict  `json:"verdict"`
	Baseline float64  `json:"baseline,omitempty"`
	Current  float64  `json:"current,omitempty"`
	Change   float64  `json:"change"` // Current / Baseline - 1
	P        *float64 `json:"p_value,omitempty"`
	// Low and High bound Change's 95% interval, where the test gives one (JudgePaired).
	Low       float64 `json:"change_low,omitempty"`
	High      float64 `json:"change_high,omitempty"`
	Threshold float64 `json:"threshold"`
	Note      string  `json:"note,omitempty"`
	// UnderMinimum says the change was significant but smaller than the threshold: no change that counts. Note then
	// says so in words ("+4.1%, under the 10% minimum").
	UnderMinimum bool `json:"under_minimum,omitempty"`
	// Rerun is the comparison with the confirming rerun, when there was one.
	Rerun *CaseResult `json:"rerun,omitempty"`
}

// GuardResult is one absolute guard checked on the current artifact.
type GuardResult struct {
	Case    string   `json:"case"`
	Ratio   float64  `json:"ratio_to_ref"`
	Max     float64  `json:"max_ratio_to_ref"`
	OK      bool     `json:"ok"`
	Rerun   *float64 `json:"rerun_ratio_to_ref,omitempty"`
	Missing bool     `json:"missing,omitempty"`
}

// Result is one baseline artifact against one current artifact.
type Result struct {
	Label     string  `json:"label"`
	Baseline  string  `json:"baseline"`
	Current   string  `json:"current"`
	Metric    string  `json:"metric"`
	Threshold float64 `json:"threshold"`
	Alpha     float64 `json:"alpha,omitempty"`
	// Test names the test when it is not the U test of two sessions (JudgePaired).
	Test string `json:"test,omitempty"`
	// Method is how the two were compared (Compare chooses it).
	Method Method        `json:"method"`
	Cases  []CaseResult  `json:"cases"`
	Guards []GuardResult `json:"guards"`
	// Notes say what limits the comparison and what a reader must know about it, as typed values.
	Notes []Warning `json:"notes"`
	// Confirmation is the rerun's artifact, when --confirm reran flagged cases.
	Confirmation string `json:"confirmation,omitempty"`
	// BaselineEmulated and CurrentEmulated say, when that side ran under an emulator, so and why
	// (artifact.Device.Emulation): its numbers are the emulator's, not the device's.
	BaselineEmulated string `json:"baseline_emulated,omitempty"`
	CurrentEmulated  string `json:"current_emulated,omitempty"`
	// AllowMissing says a case measured on one side only does not fail the gate.
	AllowMissing bool `json:"allow_missing,omitempty"`
	// NotJudged, when set, says why no case could be judged and what would judge them: a gate of such a result
	// guarded nothing, and does not pass.
	NotJudged string `json:"not_judged,omitempty"`
	// Budget is the time compare's sequential rule had (--budget), when its rounds took the pairs: what an
	// Undecided case could not be told within.
	Budget string `json:"budget,omitempty"`
}

// Method is how a Result compares its two artifacts.
type Method string

// Methods of comparison, one per kind of pair (Compare).
const (
	// Paired: one session, processes alternating; the sign test over the process pairs (JudgePaired).
	Paired Method = "paired"
	// Unpaired: one device, two sessions; the U test over the processes' ratios (Judge).
	Unpaired Method = "unpaired"
	// Unjudgeable: different origins; ×ref moves between them by more than a regression, so no verdict by time.
	Unjudgeable Method = "none"
	// Counts: instruction or allocation counts, which repeat exactly; no test.
	Counts Method = "counts"
)

// Compare judges cur against base by the one rule that says how a pair is compared: artifacts of one session by
// time are paired (JudgePaired); any others by Judge, which tests two sessions of one device with the U test and
// judges none by time across origins (unless o.AcrossOrigins). Every view's comparison comes from here.
func Compare(base, cur Loaded, o Options) (*Result, error) {
	o = o.WithDefaults()
	if o.Metric == Time && OneSession(base.Artifact, cur.Artifact) {
		return JudgePaired(base.Artifact, cur.Artifact, base.File, cur.File, o)
	}
	return Judge(base.Artifact, cur.Artifact, base.File, cur.File, o)
}

// OneSession reports whether a and b were measured in one session, their processes alternating (compare).
func OneSession(a, b *artifact.Artifact) bool {
	return a.Session.ID != "" && a.Session.ID == b.Session.ID
}

// Judged reports whether r judged anything: a case compared by its test or its counts, or a guard checked.
func (r *Result) Judged() bool {
	judged := slices.ContainsFunc(r.Cases, func(c CaseResult) bool {
		switch c.Verdict {
		case Same, Improved, Regressed, Unseen, Unconfirmed, Failed:
			return true
		}
		return false // not judged, undecided, missing, skipped
	})
	return judged || slices.ContainsFunc(r.Guards, func(g GuardResult) bool { return !g.Missing })
}

// notJudged is why r judged nothing and what would judge it, given why its cases were not judged; "" when it
// judged something.
func notJudged(r *Result, why string) string {
	if r.Judged() {
		return ""
	}
	if why == "" {
		why = "nothing judged: no case was measured on both sides; measure the same cases in both (--cases)"
		r.Notes = append(r.Notes, Warning{Kind: NotJudged, Text: why})
	}
	return why
}

// Regressions lists the cases and guards that fail the gate.
func (r *Result) Regressions() []string {
	var out []string
	for _, c := range r.Cases {
		switch {
		case c.Verdict == Missing && r.Fails(c):
			out = append(out, c.Case+" (missing)")
		case r.Fails(c):
			out = append(out, c.Case)
		}
	}
	for _, g := range r.Guards {
		if !g.OK {
			out = append(out, fmt.Sprintf("%s over %s (guard %.3g)", g.Case, cases.RefCase, g.Max))
		}
	}
	return out
}

// Fails reports whether c fails the gate: a regression, a failure, or a case missing from a side when that is not
// allowed.
func (r *Result) Fails(c CaseResult) bool {
	return c.Verdict == Regressed || c.Verdict == Failed || (c.Verdict == Missing && !r.AllowMissing)
}

// Flagged lists the cases a confirming rerun should measure: regressed cases and breached guards.
func (r *Result) Flagged() []string {
	var out []string
	for _, c := range r.Cases {
		if c.Verdict == Regressed {
			out = append(out, c.Case)
		}
	}
	for _, g := range r.Guards {
		if !g.OK && !slices.Contains(out, g.Case) {
			out = append(out, g.Case)
		}
	}
	return out
}

// Judge gates cur (read from curFile) against base (from baseFile). It fails when the thresholds are no thresholds
// (Options.Check) or the two cannot be compared at all: no ref_js_loop, or instruction counts from different builds.
func Judge(base, cur *artifact.Artifact, baseFile, curFile string, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	r := &Result{Label: cur.Label(), Baseline: baseFile, Current: curFile, Metric: o.Metric, Cases: []CaseResult{},
		Guards: []GuardResult{}, Notes: []Warning{}}
	switch o.Metric {
	case Time:
		r.Alpha, r.Threshold = o.Alpha, o.MinEffect
	case Allocations:
		r.Threshold = o.AllocationsThreshold
	default:
		r.Threshold = o.InstructionsThreshold
	}
	sides := []struct {
		a    *artifact.Artifact
		file string
	}{{base, baseFile}, {cur, curFile}}
	for _, side := range sides {
		if side.a.Case(cases.RefCase) == nil {
			return nil, fmt.Errorf("%s: no %s: the gate compares ratios to it", side.file, cases.RefCase)
		}
	}
	if o.Metric == Instructions {
		if err := comparableCounts(base, cur, baseFile, curFile); err != nil {
			return nil, err
		}
	}
	if o.Metric == Allocations {
		if err := haveAllocations(base, cur, baseFile, curFile); err != nil {
			return nil, err
		}
	}
	if base.Target != cur.Target || base.Label() != cur.Label() {
		r.Notes = append(r.Notes, Warning{Kind: Sides, Text: fmt.Sprintf("comparing %s (baseline) with %s (current)", base.Label(), cur.Label())})
	}
	if !cur.Complete {
		r.Notes = append(r.Notes, Warning{Kind: Incomplete, Artifact: curFile,
			Text: fmt.Sprintf("incomplete run: %d cases measured, %d failed", len(cur.Cases), len(cur.Failures))})
	}
	for _, side := range sides {
		if note := side.a.MarkedNote(); note != "" {
			r.Notes = append(r.Notes, Warning{Kind: Marked, Artifact: side.file, Text: note})
		}
	}
	r.BaselineEmulated, r.CurrentEmulated = base.Device.Emulation(), cur.Device.Emulation()
	// The gate compares ratios to ref_js_loop whatever the two are; when their devices, engines or builds differ, one
	// line says how, since only the ratio then means anything. Sessions are left out: ×ref is what takes them out.
	ds := slices.DeleteFunc(artifact.Differences(base, cur), func(d artifact.Difference) bool { return d.Kind == artifact.DiffSession })
	if len(ds) > 0 {
		r.Notes = append(r.Notes, Warning{Kind: Origin, Text: fmt.Sprintf("%s and %s come from %s: comparing ×ref only", baseFile, curFile, artifact.Describe(ds))})
	}
	r.AllowMissing = o.AllowMissing
	for _, name := range order(base, cur) {
		if name == cases.RefCase {
			continue
		}
		r.Cases = append(r.Cases, compareCase(base, cur, name, o))
	}
	r.Method = Unpaired
	why := ""
	switch {
	case o.Metric != Time:
		r.Method = Counts
	case acrossOrigins(ds) && !o.AcrossOrigins:
		r.Method = Unjudgeable
		why = withholdTimeVerdicts(r)
	}
	if o.Metric == Time {
		r.Notes = append(r.Notes, refNote(base, cur))
	}
	if why == "" {
		why = tooSmallToJudge(r)
	}
	r.Guards = checkGuards(cur, o.Guards)
	r.NotJudged = notJudged(r, why)
	return r, nil
}

// tooSmallToJudge is why r judged nothing when every case it tested was too small for its alpha (the first such
// case's note, which says how many would judge it), added to its notes; "" when a case was judged or none was tested.
func tooSmallToJudge(r *Result) string {
	why := ""
	for _, c := range r.Cases {
		switch c.Verdict {
		case Unjudged:
			if why == "" {
				why = c.Note
			}
		case Missing, Skipped, Undecided:
		default:
			return ""
		}
	}
	if why != "" {
		why = "nothing judged: " + why
		r.Notes = append(r.Notes, Warning{Kind: NotJudged, Text: why})
	}
	return why
}

// acrossOrigins reports whether the differences reach beyond the session and what comparing two programs is made of
// (artifact.BeyondPrograms): another device, engine, compiler or defines, under which ×ref itself moves.
func acrossOrigins(ds []artifact.Difference) bool {
	return slices.ContainsFunc(artifact.BeyondPrograms(ds), func(d artifact.Difference) bool { return d.Kind != artifact.DiffSession })
}

// withholdTimeVerdicts turns r's time verdicts into "not judged" and says, in a note and in what it returns, what
// would judge them.
func withholdTimeVerdicts(r *Result) string {
	return withhold(r, "not judged by time: ×ref moves between CPUs, compilers and QuickJS builds by more than a "+
		"regression; judge by instruction counts (--metric instructions), rerun both on one device (--confirm, "+
		"bench-bridge compare), or read the device's own history (bench-bridge history changes); --across-origins "+
		"judges anyway")
}

// withhold turns r's time verdicts into "not judged", says why in a note and returns it.
func withhold(r *Result, why string) string {
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Verdict == Same || c.Verdict == Improved || c.Verdict == Regressed || c.Verdict == Unseen {
			c.Verdict, c.Note, c.UnderMinimum = Unjudged, "", false
		}
	}
	r.Notes = append(r.Notes, Warning{Kind: NotJudged, Text: why})
	return why
}

// stateShift compares the least ref_js_loop samples of base and cur when they come from one device
// (stats.StateShift); on two devices their speeds differ for other reasons, and nothing is shifted.
func stateShift(base, cur *artifact.Artifact) stats.Shift {
	s := stats.StateShift(base.RefSamples(), cur.RefSamples(), stats.DefaultStateShift)
	// Two engines' ref_js_loops are different loops (an interpreter's and a JIT's differ tenfold): their speeds say
	// nothing of the machine's state.
	s.Shifted = s.Shifted && artifact.SameDevice(base, cur) && base.Engine == cur.Engine
	return s
}

// refNote says how fast ref_js_loop ran in each run: the machine's speed, which every ratio divides out. When one
// run never reached the other's speed on one device (stateShift), it warns instead, naming the slow side: a slow
// baseline can hide a regression, a slow current run flag a case that did not change.
func refNote(base, cur *artifact.Artifact) Warning {
	shift := stateShift(base, cur)
	lb, lc := shift.LeastA, shift.LeastB
	if !shift.Shifted {
		b, c := base.RefMedian(), cur.RefMedian()
		return Warning{Kind: Speed, Text: fmt.Sprintf("%s took %s/op in the current run, %s in the baseline (x%.2f): the "+
			"machine's speed, taken out of every ratio", cases.RefCase, artifact.FormatNs(c), artifact.FormatNs(b), stats.Ratio(c, b))}
	}
	what := "The baseline never ran at the current run's speed, so a regression can hide behind it: measure a new " +
		"baseline, or the two programs in one session (bench-bridge compare)."
	if lc > lb {
		what = "The current run never ran at the baseline's speed, so a case can be flagged that did not change: " +
			"--confirm reruns what is flagged beside the baseline's program."
	}
	return Warning{Kind: StateShift, Text: fmt.Sprintf("%s's least sample was %s in the baseline and %s in the current "+
		"run (x%.2f), on one device; in a state that slow the ratios change too (docs/gate.md). %s", cases.RefCase,
		artifact.FormatNs(lb), artifact.FormatNs(lc), stats.Ratio(lc, lb), what)}
}

// comparableCounts refuses instruction counts of different builds: another compiler or QuickJS counts differently.
func comparableCounts(base, cur *artifact.Artifact, baseFile, curFile string) error {
	for _, side := range []struct {
		a    *artifact.Artifact
		file string
	}{{base, baseFile}, {cur, curFile}} {
		ref := side.a.Case(cases.RefCase)
		if ref.InstructionsPerOp == nil {
			return fmt.Errorf("%s: no instruction counts (measure with --metric instructions)", side.file)
		}
		// Every count is divided by the reference's: 0 would make every case "improved" (artifact.Read refuses it
		// too; this guards artifacts made in memory).
		if n := *ref.InstructionsPerOp; !(n > 0) || math.IsInf(n, 0) {
			return fmt.Errorf("%s: %s: field \"instructions_per_op\" is %v, want a positive count", side.file, cases.RefCase, n)
		}
	}
	for _, f := range []struct{ what, b, c string }{
		{"compiler", base.Device.Compiler, cur.Device.Compiler},
		{"QuickJS", base.Device.QuickJS, cur.Device.QuickJS},
		{"architecture", base.Device.Arch, cur.Device.Arch},
	} {
		if f.b != f.c {
			return fmt.Errorf("instruction counts are comparable only for the same build: %s is %q in %s and %q in %s "+
				"(accept a new baseline, see docs/gate.md)", f.what, f.b, baseFile, f.c, curFile)
		}
	}
	return nil
}

// order is the catalogue's order, then cases only one of the artifacts knows.
func order(base, cur *artifact.Artifact) []string {
	var names []string
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range cases.Names() {
		if base.Case(n) != nil || cur.Case(n) != nil || failed(cur, n) != "" {
			add(n)
		}
	}
	for _, a := range []*artifact.Artifact{base, cur} {
		for _, c := range a.Cases {
			add(c.Name)
		}
	}
	return names
}

func failed(a *artifact.Artifact, name string) string {
	for _, f := range a.Failures {
		if f.Name == name {
			return f.Reason
		}
	}
	return ""
}

// compareCase compares one case that is not the reference.
func compareCase(base, cur *artifact.Artifact, name string, o Options) CaseResult {
	res, b, c, ok := measuredInBoth(base, cur, name, o)
	if !ok {
		return res
	}
	switch o.Metric {
	case Instructions:
		return compareInstructions(base, cur, b, c, res)
	case Allocations:
		return compareAllocations(b, c, res)
	}
	var nb, nc []float64
	nb, res.Baseline = gateValues(base, b)
	nc, res.Current = gateValues(cur, c)
	cmp := stats.Compare(nb, nc, stats.Thresholds{Alpha: o.Alpha})
	res.Change = stats.Change(res.Baseline, res.Current)
	p := cmp.P
	res.P = &p
	if len(cmp.Warnings) > 0 {
		res.Note = cmp.Warnings[0]
	}
	if why := uTestTooSmall(len(nb), len(nc), o.Alpha); why != "" {
		res.Verdict, res.Note = Unjudged, why
		return res
	}
	th := stats.UnpairedThresholds(o.Alpha, res.Threshold)
	res.Verdict = verdict(th.Tested(res.Change, p))
	if res.Verdict == Same && stats.Significant(p, o.Alpha) {
		res.UnderMinimum, res.Note = true, fmt.Sprintf("%s, under the %s minimum", signedPercent(res.Change), percent(res.Threshold))
	}
	if n := o.Noise; res.Verdict == Same && n != nil && n.Visible[name] > res.Threshold {
		res.Verdict = Unseen
		res.Note = fmt.Sprintf("cannot see %s on %s for %s: its history sees changes of %s and more", percent(res.Threshold),
			n.Device, name, percent(n.Visible[name]))
	}
	return res
}

// uTestTooSmall says why a U test of n1 and n2 processes cannot judge anything at alpha, and how many would; "" when
// it can.
func uTestTooSmall(n1, n2 int, alpha float64) string {
	least := stats.LeastUP(n1, n2)
	if stats.Significant(least, alpha) {
		return ""
	}
	need := stats.UTestNeeds(alpha)
	return fmt.Sprintf("%d and %d processes: a U test cannot reach alpha %g with so few (at best p=%.3f); %d a side "+
		"would judge it (raise --runs to %d)", n1, n2, alpha, least, need, need)
}

// verdict is the gate's word for the direction of a change that counts.
func verdict(d stats.Direction) Verdict {
	switch d {
	case stats.Worse:
		return Regressed
	case stats.Better:
		return Improved
	}
	return Same
}

// measuredInBoth finds name in both artifacts; when it is skipped, failed or missing, it returns the verdict that says
// so and ok false.
func measuredInBoth(base, cur *artifact.Artifact, name string, o Options) (res CaseResult, b, c *artifact.Case, ok bool) {
	res = CaseResult{Case: name, Threshold: o.threshold(name)}
	b, c = base.Case(name), cur.Case(name)
	switch {
	case o.Cases[name].Skip:
		res.Verdict, res.Note = Skipped, "skipped by gate.cases."+name+".skip"
	case b != nil && c == nil && failed(cur, name) != "":
		res.Verdict, res.Note = Failed, failed(cur, name)
	case b == nil || c == nil:
		res.Verdict, res.Note = Missing, "not measured in both"
	default:
		return res, b, c, true
	}
	return res, b, c, false
}

func compareInstructions(base, cur *artifact.Artifact, b, c *artifact.Case, res CaseResult) CaseResult {
	if b.InstructionsPerOp == nil || c.InstructionsPerOp == nil {
		res.Verdict, res.Note = Missing, "no instruction count in both"
		return res
	}
	res.Baseline = stats.Ratio(*b.InstructionsPerOp, *base.Case(cases.RefCase).InstructionsPerOp)
	res.Current = stats.Ratio(*c.InstructionsPerOp, *cur.Case(cases.RefCase).InstructionsPerOp)
	res.Change = stats.Change(res.Baseline, res.Current)
	res.Verdict = verdict(stats.ChangeThresholds{Margin: res.Threshold}.Beyond(res.Change))
	return res
}

// haveAllocations refuses artifacts without memory counts: the allocation gate would find nothing to compare.
func haveAllocations(base, cur *artifact.Artifact, baseFile, curFile string) error {
	for _, side := range []struct {
		a    *artifact.Artifact
		file string
	}{{base, baseFile}, {cur, curFile}} {
		if !slices.ContainsFunc(side.a.Cases, func(c artifact.Case) bool { return allocsPerOp(&c) != nil }) {
			return fmt.Errorf("%s: no allocation counts (cases[].memory.allocs_per_op): measure with a program that prints memory records (docs/protocol.md)", side.file)
		}
	}
	return nil
}

func allocsPerOp(c *artifact.Case) *float64 {
	if c.Memory == nil {
		return nil
	}
	return c.Memory.AllocsPerOp
}

// compareAllocations compares allocations per op, which repeat exactly for the same binary: any growth over the
// threshold (absolute, in allocations per op) regresses, with no test.
func compareAllocations(b, c *artifact.Case, res CaseResult) CaseResult {
	nb, nc := allocsPerOp(b), allocsPerOp(c)
	if nb == nil || nc == nil {
		res.Verdict, res.Note = Missing, "no allocation count in both"
		return res
	}
	res.Baseline, res.Current, res.Change = *nb, *nc, *nc-*nb
	res.Verdict = verdict(stats.ChangeThresholds{Margin: res.Threshold}.Beyond(res.Change))
	return res
}

// gateValues are what the U test compares for case c of a (stats.RatioValues) and the ratio it reports: the case's
// ratio_to_ref over processes, or with one process (schema 1) its median over ref_js_loop's.
func gateValues(a *artifact.Artifact, c *artifact.Case) ([]float64, float64) {
	values := stats.RatioValues(c.ProcessRatios(), len(c.Processes), c.SamplesNs, a.RefMedian())
	if len(c.Processes) >= 2 && len(values) == len(c.Processes) && c.RatioToRef != nil {
		return values, *c.RatioToRef
	}
	return values, stats.Ratio(c.MedianNs, a.RefMedian())
}

// checkGuards checks the guards that apply to a.
func checkGuards(a *artifact.Artifact, guards []Guard) []GuardResult {
	out := []GuardResult{}
	for _, g := range guards {
		if (g.Target != "" && g.Target != a.Target) || (g.Codec != "" && g.Codec != a.Codec) {
			continue
		}
		res := GuardResult{Case: g.Case, Max: g.MaxRatioToRef, OK: true}
		if c := a.Case(g.Case); c != nil && c.RatioToRef != nil {
			res.Ratio = *c.RatioToRef
			res.OK = res.Ratio <= g.MaxRatioToRef
		} else {
			res.Missing = true
		}
		out = append(out, res)
	}
	return out
}

// Confirm compares the rerun of the flagged cases (an artifact of the same program on the same target, made after
// Judge flagged them) with the baseline: a case stays regressed only when the rerun regresses too, a guard stays
// breached only when the rerun breaches it too.
func Confirm(r *Result, base, rerun *artifact.Artifact, rerunFile string, o Options) {
	r.Confirmation = rerunFile
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Verdict != Regressed {
			continue
		}
		again := compareCase(base, rerun, c.Case, o)
		c.Rerun = &again
		if again.Verdict != Regressed && again.Verdict != Failed {
			c.Verdict = Unconfirmed
		}
	}
	for i := range r.Guards {
		g := &r.Guards[i]
		if g.OK {
			continue
		}
		if c := rerun.Case(g.Case); c != nil && c.RatioToRef != nil {
			v := *c.RatioToRef
			g.Rerun = &v
			g.OK = v <= g.Max
		}
	}
}

// signedPercent prints a relative change with its sign: "+4.1%".
func signedPercent(v float64) string { return fmt.Sprintf("%+.1f%%", 100*v) }

// percent prints a relative change as a percentage with three significant digits: 0.1 is "10%".
func percent(v float64) string { return fmt.Sprintf("%.3g%%", 100*v) }
