// Package artifact defines the JSON artifact of one run (the only thing the measuring side and the analysing side
// share), validates it when read and writes it atomically. It prints nothing.
package artifact

import (
	"strconv"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/stats"
)

// Schema is the version of the artifact format this package reads and writes. Bump it on any change that an older
// reader would misread; docs/artifact.md describes every version.
const Schema = 6

// SchemaV1 to SchemaV5 are the previous versions, which Parse still reads and converts on load: schema 1 had one
// process per run (fromV1); schema 2 took a case's ratio_to_ref as the median of its processes' ratios, and schema 3
// as the least process median over the least ref median (fromEarlier); schemas 1 to 4 named the prediction intervals
// ci_* (fromV4); schemas 1 to 5 took median_ns over every process, in whatever state each ran (they record no
// states, so every process reads as in the fastest), and had no engine, which was QuickJS unless a program's
// `meta engine` line said otherwise (fromV5).
const (
	SchemaV1 = 1
	SchemaV2 = 2
	SchemaV3 = 3
	SchemaV4 = 4
	SchemaV5 = 5
)

// Artifact is one run of one program on one target.
type Artifact struct {
	Schema int    `json:"schema"`
	Tool   string `json:"tool"`
	Target string `json:"target"`
	// Kind is bridge or floor (ProgramBridge, ProgramFloor); its JSON key, program, is older than the word
	// (docs/results.md#words) and kept for the artifacts' readers.
	Kind     string `json:"program"`
	Codec    string `json:"codec,omitempty"`
	Complete bool   `json:"complete"`
	// Engine is the JavaScript engine the program ran on. Schema 6: an older reader would take another engine's
	// numbers for QuickJS's.
	Engine     Engine    `json:"engine"`
	Device     Device    `json:"device"`
	Settings   Settings  `json:"settings"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// TimerOverheadNs is what one clock read pair costs on the device (the median over processes); each process's
	// own value is subtracted from its samples.
	TimerOverheadNs float64 `json:"timer_overhead_ns"`
	// Session ties the artifacts measured together (compare); every run has one. Schema 2.
	Session Session `json:"session"`
	// Processes are the program's processes in the order they ran. Schema 2; one for a converted schema 1 artifact.
	Processes []Process `json:"processes"`
	// States is the device's fastest state over the run, which median_ns is taken in, and how many processes the run
	// added to have enough of them in it; nil when the run found none (no ref_js_loop) and in artifacts before schema 6.
	States   *States   `json:"states,omitempty"`
	Cases    []Case    `json:"cases"`
	Failures []Failure `json:"failures"`
	Warnings []string  `json:"warnings"`
	// NotImplemented are the cases asked for that the program does not list (a bridge that implements a subset);
	// they are neither measured nor failures.
	NotImplemented []string `json:"not_implemented,omitempty"`
	// NotImplementedWhy gives, for cases of NotImplemented, why the program lacks them: its `meta
	// not_implemented.CASE REASON` lines. Absent when it gave none.
	NotImplementedWhy map[string]string `json:"not_implemented_why,omitempty"`
	// Meta are the program's own meta lines (program, codec, engine, bridge, quickjs, compiler, ...).
	Meta map[string]string `json:"meta,omitempty"`
}

// Engine names a JavaScript engine and its version: {"name": "quickjs", "version": "2025-04-26"}. The name is empty
// when the program did not say (a user's program without a `meta engine` line).
type Engine struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// String is "quickjs 2025-04-26", or "" for an unknown engine.
func (e Engine) String() string {
	return strings.TrimSpace(e.Name + " " + e.Version)
}

// ParseEngine reads a `meta engine` line's value, "NAME VERSION" (the version may hold spaces, or be absent).
func ParseEngine(meta string) Engine {
	name, version, _ := strings.Cut(strings.TrimSpace(meta), " ")
	return Engine{Name: name, Version: strings.TrimSpace(version)}
}

// Program kinds.
const (
	ProgramBridge = "bridge"
	ProgramFloor  = "floor"
)

// Device says where and how the numbers were made.
type Device struct {
	OS       string `json:"os"`
	Kernel   string `json:"kernel"`
	Arch     string `json:"arch"`
	CPUModel string `json:"cpu_model"`
	Cores    int    `json:"cores"`
	Governor string `json:"governor,omitempty"`
	Compiler string `json:"compiler"`
	CFlags   string `json:"cflags"`
	QuickJS  string `json:"quickjs"`
	// Emulated is true when the program ran under an emulator (qemu): its numbers are not the device's.
	Emulated bool `json:"emulated"`
	// EmulatedReason says why the run counts as emulated (an emulator device, a qemu- run prefix, a program for
	// another architecture than the device's kernel); empty when it is not, and in artifacts older than the field.
	EmulatedReason string `json:"emulated_reason,omitempty"`
	// RunPrefix is the command the program ran under on the device ("taskset -c 1", "qemu-arm -cpu cortex-a8").
	RunPrefix string `json:"run_prefix,omitempty"`
	// Libc names the device's C library ("glibc 2.36"); static programs do not use it, but it dates the system.
	Libc string `json:"libc,omitempty"`
	// LoadAvg is the 1, 5 and 15 minute load average when the run started: a busy device measures slow.
	LoadAvg string `json:"load_avg,omitempty"`
	// CPUFreqs are each CPU's cpufreq governor and frequencies, where readable.
	CPUFreqs []CPUFreq `json:"cpu_freqs,omitempty"`
	// Thermal are the device's thermal zones and their temperatures when the run started.
	Thermal []Thermal `json:"thermal,omitempty"`
	// Android is what an Android device's properties and services report; absent elsewhere.
	Android *Android `json:"android,omitempty"`
	// Warnings are what a reader should know about the device (unlocked clocks, throttling); the runner moves them
	// into the artifact's warnings.
	Warnings []string `json:"-"`
}

// Android is what getprop and the system services say about an Android device.
type Android struct {
	Model        string `json:"model"`
	Manufacturer string `json:"manufacturer,omitempty"`
	Device       string `json:"device"`
	Release      string `json:"release"`
	SDK          string `json:"sdk"`
	Fingerprint  string `json:"fingerprint"`
	ABI          string `json:"abi"`
	// ThermalStatus is the thermal service's status: 0 none, 1 light ... 6 shutdown; nil when not reported.
	ThermalStatus *int `json:"thermal_status"`
	// BatteryCelsius is the battery's temperature; nil when not readable.
	BatteryCelsius *float64 `json:"battery_celsius"`
}

// CPUFreq is one CPU's frequency scaling state; frequencies are in kHz, 0 when unreadable.
type CPUFreq struct {
	CPU      int    `json:"cpu"`
	Governor string `json:"governor,omitempty"`
	CurKHz   int64  `json:"cur_khz,omitempty"`
	MinKHz   int64  `json:"min_khz,omitempty"`
	MaxKHz   int64  `json:"max_khz,omitempty"`
}

// Thermal is one thermal zone's temperature.
type Thermal struct {
	Zone    string  `json:"zone"`
	Celsius float64 `json:"celsius"`
}

// Settings are the measurement settings the run used.
type Settings struct {
	Samples   int   `json:"samples"`
	MinTimeNs int64 `json:"min_time_ns"`
	WarmupNs  int64 `json:"warmup_ns"`
	// Defines are the extra compile-time options the program was built with.
	Defines []string `json:"defines,omitempty"`
	// Runs is how many processes of the program the run made (--runs); 1 for a converted schema 1 artifact.
	Runs int `json:"runs"`
	// BinarySHA256 identifies the program's binary (its sha256, hex): the same value means the same program, so
	// that gate --confirm can tell whether the baseline's program can still be built and run beside the current.
	BinarySHA256 string `json:"binary_sha256,omitempty"`
	// Slowdown is the share of each crossing's cost the program added as busy work (--slowdown, the A/B proof of
	// the gate); 0 for none.
	Slowdown float64 `json:"slowdown,omitempty"`
	// SlowdownSteps is a fixed number of busy-work steps added per crossing (--slowdown-steps, the A/B proof of
	// the instruction-count gate); 0 for none.
	SlowdownSteps int `json:"slowdown_steps,omitempty"`
	// Clocks are the cores the program was pinned to and the frequencies they were locked at (--cpu, --lock-clocks);
	// nil when neither was asked for.
	Clocks *Clocks `json:"clocks,omitempty"`
	// Commit is the commit of the user's bridge's git repository the program was built from (NAME@REV); absent
	// for a program built from its folder as it is. history add takes it as the artifact's commit.
	Commit string `json:"commit,omitempty"`
	// CooldownNs is how long a marked process waited before it was measured again (--cooldown); 0 for no retries.
	CooldownNs int64 `json:"cooldown_ns,omitempty"`
}

// Session is one measuring session: one run of one program, or a compare of several programs whose processes
// alternated. Artifacts with the same ID were measured side by side on one device.
type Session struct {
	// ID is unique per session; artifacts of one compare share it. Empty for a converted schema 1 artifact.
	ID string `json:"id"`
	// Programs are the labels of the session's programs ("json linux", "json linux slowdown=0.1"), the first being
	// compare's baseline; Program is this artifact's index in it.
	Programs []string `json:"programs"`
	Program  int      `json:"program"`
	// Order is the program index of every process of the session, in the order they ran: [0 1 1 0 0 1].
	Order []int `json:"order"`
	// Seed is the seed the case orders of the processes were drawn from, so that a session's orders can be redrawn.
	Seed uint64 `json:"seed"`
}

// Process is one process of the program.
type Process struct {
	// Seq is the round the process ran in (0-based): compare runs one process of each program per round, in the
	// order the session's Order gives.
	Seq int `json:"seq"`
	// CaseOrder is the order in which the process ran the cases.
	CaseOrder []string `json:"case_order"`
	// Protocol is the bench program protocol version the process spoke (docs/protocol.md).
	Protocol int `json:"protocol"`
	// TimerOverheadNs is this process's cost of one clock read pair.
	TimerOverheadNs float64 `json:"timer_overhead_ns"`
	// PeakRSSBytes is the process's peak resident set size, from its rss record (getrusage's ru_maxrss, in bytes);
	// 0 when it printed none.
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
	// CPU is the core the process ran on: the one its program reported at its start (its cpu record), else the one
	// core it was pinned to; nil when neither is known.
	CPU *int `json:"cpu,omitempty"`
	// Start and End are the device's state read just before the process started and just after it ended; nil when
	// the target cannot read it.
	Start *DeviceState `json:"start,omitempty"`
	End   *DeviceState `json:"end,omitempty"`
	// Marks say why the process may not have run in the state the others ran in (stats.MarkProcesses); empty when
	// it did.
	Marks []string `json:"marks,omitempty"`
	// Retries counts the times the process was measured again after a cooldown (--cooldown) because it was marked:
	// this is the last of them.
	Retries int `json:"retries,omitempty"`
	// SlowerCases counts the cases the process ran in a slower state than the run's fastest (cases[].processes[].slower),
	// and Slower is how much slower they ran, their median (1.5: 50% slower); both absent when it ran every case in
	// the fastest state. Schema 6.
	SlowerCases int     `json:"slower_cases,omitempty"`
	Slower      float64 `json:"slower,omitempty"`
}

// States is the device's fastest state over a run, decided from ref_js_loop's levels beside every case in every
// process (stats.FastestState), and what the run did to have enough processes in it.
type States struct {
	// RefNs is the fastest state's level of ref_js_loop, the median of the levels in it; BoundNs the slowest level in
	// it. A case ran in a slower state in a process when the ref beside it there was above BoundNs.
	RefNs   float64 `json:"ref_ns"`
	BoundNs float64 `json:"bound_ns"`
	// Want is how many processes every case was to have in the fastest state; Added is how many processes the run
	// measured beyond those asked for (--runs) to reach it, at most MaxAdded: the bound it keeps to.
	Want     int `json:"want"`
	Added    int `json:"added"`
	MaxAdded int `json:"max_added"`
}

// Case is the result of one measured case. Times are per op, in nanoseconds, timer overhead removed.
//
// Since schema 2 the statistics come from the process level: MedianNs is the median of the processes' medians and
// the interval is a prediction interval over processes (where another run's median is expected). Since schema 4
// RatioToRef is the least of the case's samples over the least of the ref samples measured beside them
// (stats.LeastOverLeast); since schema 5 the intervals are named pi_* for what they are; since schema 6 MedianNs and
// its interval are over the processes that ran the case in the device's fastest state (StateProcesses).
type Case struct {
	Name     string `json:"name"`
	Crossing bool   `json:"crossing"`
	// Iterations is the number of ops in each sample, as calibrated on the device (the first process's).
	Iterations int64 `json:"iterations"`
	// SamplesNs are every process's samples, one process after another, as Processes lists them.
	SamplesNs []float64 `json:"samples_ns"`
	// MedianNs is the median of the medians of StateProcesses.
	MedianNs float64 `json:"median_ns"`
	// PILowNs and PIHighNs bound the prediction interval of MedianNs: where another run's median of as many
	// processes is expected, at PILevel (stats.PredictionInterval). In an artifact converted from schema 1 (one
	// process) they are what that schema had: the confidence interval of the median over the process's samples.
	PILowNs  float64 `json:"pi_low_ns"`
	PIHighNs float64 `json:"pi_high_ns"`
	// PILevel is the level of the interval; 0 when no interval could be computed.
	PILevel float64 `json:"pi_level"`
	// RatioToRef is the case's least sample over the least of the ref_js_loop samples measured beside them, over
	// every process (stats.LeastOverLeast); nil when ref_js_loop was not measured.
	RatioToRef *float64 `json:"ratio_to_ref"`
	// RatioPILow and RatioPIHigh bound the prediction interval of RatioToRef: where another run's is expected, at
	// PILevel (stats.LeastOverLeast); absent when not computed.
	RatioPILow  *float64 `json:"ratio_pi_low,omitempty"`
	RatioPIHigh *float64 `json:"ratio_pi_high,omitempty"`
	// Processes are the case's results in each process that measured it, in the order the processes ran.
	Processes []CaseProcess `json:"processes"`
	// CrossingsPerMs is 1e6 / MedianNs for crossing cases, nil otherwise.
	CrossingsPerMs *float64 `json:"crossings_per_ms"`
	// InstructionsPerOp is what one op costs in instructions under valgrind's callgrind (--metric instructions);
	// nil when not measured. The same binary gives the same count run after run.
	InstructionsPerOp *float64 `json:"instructions_per_op,omitempty"`
	// Memory is what one op allocates, counted in the program's memory pass after the samples (docs/protocol.md);
	// nil when the program reports no memory records.
	Memory *Memory `json:"memory,omitempty"`
	// Partial is true when the program died during the case: its samples are the ones it printed before, and the
	// case is in Failures too.
	Partial bool `json:"partial,omitempty"`
}

// CaseProcess is one case in one process.
type CaseProcess struct {
	// Process is the index of the process in the artifact's Processes.
	Process    int       `json:"process"`
	Iterations int64     `json:"iterations"`
	SamplesNs  []float64 `json:"samples_ns"`
	MedianNs   float64   `json:"median_ns"`
	// RefSamplesNs are the ref_js_loop samples the process took beside this case's (one before each of its
	// samples), or for a protocol 1 program ref_js_loop's own samples in the same process; absent for ref_js_loop
	// itself.
	RefSamplesNs []float64 `json:"ref_samples_ns,omitempty"`
	// RefMedianNs is the median of RefSamplesNs, or for a protocol 1 program ref_js_loop's median in the same
	// process; 0 when the process did not measure ref_js_loop.
	RefMedianNs float64 `json:"ref_median_ns"`
	// RatioToRef is MedianNs / RefMedianNs (1 for ref_js_loop itself); nil without a ref.
	RatioToRef *float64 `json:"ratio_to_ref"`
	// SlowdownNs is the busy work per op the program added (--slowdown), as it calibrated it at start-up, and
	// SlowdownBaseNs the case's own cost per op it calibrated against; absent without --slowdown.
	SlowdownNs     float64 `json:"slowdown_ns,omitempty"`
	SlowdownBaseNs float64 `json:"slowdown_base_ns,omitempty"`
	// Memory is the process's memory record of the case; absent when it printed none.
	Memory *ProcessMemory `json:"memory,omitempty"`
	// Slower is how much slower than the run's fastest state the device ran while the process measured this case:
	// the ref beside it over the fastest state's (artifact's states.ref_ns); absent when it ran in the fastest state.
	// Schema 6.
	Slower float64 `json:"slower,omitempty"`
}

// minStateProcesses is the fewest processes in the fastest state that a case's median and interval are taken over;
// with fewer, they are taken over every process.
const minStateProcesses = 2

// StateProcesses returns the processes that ran the case in the device's fastest state (Slower absent), which its
// median_ns and interval are taken over; every process when fewer than two did.
func (c *Case) StateProcesses() []CaseProcess {
	var out []CaseProcess
	for _, p := range c.Processes {
		if p.Slower == 0 {
			out = append(out, p)
		}
	}
	if len(out) < minStateProcesses {
		return c.Processes
	}
	return out
}

// inState reports whether c's median and interval are over processes that ran it in the device's fastest state:
// the run decided one (States), and at least two processes ran c in it.
func (a *Artifact) inState(c *Case) bool {
	if a.States == nil {
		return false
	}
	n := 0
	for _, p := range c.Processes {
		if p.Slower == 0 {
			n++
		}
	}
	return n >= minStateProcesses
}

// StateInterval is the median of c's StateMedians and its prediction interval at level: by the rule for processes
// in one state when they ran in the fastest (stats.PredictionIntervalInState), else by the rule for mixed states.
func (a *Artifact) StateInterval(c *Case, level float64) stats.Prediction {
	if a.inState(c) {
		return stats.PredictionIntervalInState(c.StateMedians(), level)
	}
	return stats.PredictionInterval(c.StateMedians(), level)
}

// StateMedians returns the median of every process of StateProcesses.
func (c *Case) StateMedians() []float64 {
	ps := c.StateProcesses()
	out := make([]float64, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.MedianNs)
	}
	return out
}

// ProcessMedians returns the median of every process that measured the case.
func (c *Case) ProcessMedians() []float64 {
	out := make([]float64, 0, len(c.Processes))
	for _, p := range c.Processes {
		out = append(out, p.MedianNs)
	}
	return out
}

// ProcessSamples returns, for every process that measured the case beside a ref, its samples and the ref samples
// beside them, as stats.LeastOverLeast takes them: the process's ref_samples_ns, or for ref_js_loop itself its own
// samples (so that its ratio is 1), or for a process that recorded only a ref median that median alone. Processes
// without a ref are left out.
func (c *Case) ProcessSamples() []stats.ProcessSamples {
	var out []stats.ProcessSamples
	for _, p := range c.Processes {
		if !(p.RefMedianNs > 0) || len(p.SamplesNs) == 0 {
			continue
		}
		ref := p.RefSamplesNs
		switch {
		case len(ref) > 0:
		case c.Name == refCase:
			ref = p.SamplesNs
		default:
			ref = []float64{p.RefMedianNs}
		}
		out = append(out, stats.ProcessSamples{Samples: p.SamplesNs, Ref: ref})
	}
	return out
}

// refMedians returns every process's ref median (0 for a process without a ref).
func (c *Case) refMedians() []float64 {
	out := make([]float64, 0, len(c.Processes))
	for _, p := range c.Processes {
		out = append(out, p.RefMedianNs)
	}
	return out
}

// ProcessRatios returns every process's ratio to ref_js_loop, leaving out processes without one.
func (c *Case) ProcessRatios() []float64 {
	out := make([]float64, 0, len(c.Processes))
	for _, p := range c.Processes {
		if p.RatioToRef != nil {
			out = append(out, *p.RatioToRef)
		}
	}
	return out
}

// RefSamples returns the samples of ref_js_loop, every process's, or nil when a did not measure it.
func (a *Artifact) RefSamples() []float64 {
	if ref := a.Case(refCase); ref != nil {
		return ref.SamplesNs
	}
	return nil
}

// RefMedian returns the median of ref_js_loop, or 0 when a did not measure it.
func (a *Artifact) RefMedian() float64 {
	if ref := a.Case(refCase); ref != nil {
		return ref.MedianNs
	}
	return 0
}

// Failure is a case that produced no result: the program reported an error, crashed, or was killed.
type Failure struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
	// StderrTail is the end of the program's stderr when it died.
	StderrTail string `json:"stderr_tail,omitempty"`
}

// Case returns the case called name, or nil.
func (a *Artifact) Case(name string) *Case {
	for i := range a.Cases {
		if a.Cases[i].Name == name {
			return &a.Cases[i]
		}
	}
	return nil
}

// Label names the artifact in a table: "floor linux", "json linux", or the user bridge's codec, with the busy work
// it added ("json linux slowdown=0.1"); the floor of an engine besides QuickJS with its name ("floor jsc linux").
func (a *Artifact) Label() string {
	return a.label(a.Engine.Name != "quickjs")
}

// LabelNamingEngine is Label with a floor's engine named, QuickJS's too ("floor quickjs linux"): for a table of
// several engines.
func (a *Artifact) LabelNamingEngine() string {
	return a.label(true)
}

func (a *Artifact) label(engine bool) string {
	l := a.Kind + " " + a.Target
	switch {
	case a.Kind == ProgramFloor && engine && a.Engine.Name != "":
		l = "floor " + a.Engine.Name + " " + a.Target
	case a.Kind == ProgramFloor:
		l = "floor " + a.Target
	case a.Codec != "":
		l = a.Codec + " " + a.Target
		if c := a.Settings.Commit; c != "" { // one bridge at two commits: two programs
			l = a.Codec + "@" + c[:min(12, len(c))] + " " + a.Target
		}
	}
	if s := a.Settings.Slowdown; s > 0 {
		l += " slowdown=" + strconv.FormatFloat(s, 'g', -1, 64)
	}
	if s := a.Settings.SlowdownSteps; s > 0 {
		l += " slowdown-steps=" + strconv.Itoa(s)
	}
	return l
}
