// Package artifact defines the JSON artifact of one run (the only thing the measuring side and the analysing side
// share), validates it when read and writes it atomically. It prints nothing.
package artifact

import (
	"time"
)

// Schema is the version of the artifact format this package reads and writes. Bump it on any change that an older
// reader would misread; docs/artifact.md describes every version.
const Schema = 1

// Artifact is one run of one program on one target.
type Artifact struct {
	Schema     int       `json:"schema"`
	Tool       string    `json:"tool"`
	Target     string    `json:"target"`
	Program    string    `json:"program"`
	Codec      string    `json:"codec,omitempty"`
	Complete   bool      `json:"complete"`
	Device     Device    `json:"device"`
	Settings   Settings  `json:"settings"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// TimerOverheadNs is what one clock read pair costs on the device; it is subtracted from every sample.
	TimerOverheadNs float64   `json:"timer_overhead_ns"`
	Cases           []Case    `json:"cases"`
	Failures        []Failure `json:"failures"`
	Warnings        []string  `json:"warnings"`
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
}

// Settings are the measurement settings the run used.
type Settings struct {
	Samples   int   `json:"samples"`
	MinTimeNs int64 `json:"min_time_ns"`
	WarmupNs  int64 `json:"warmup_ns"`
}

// Case is the result of one measured case. Times are per op, in nanoseconds, timer overhead removed.
type Case struct {
	Name     string `json:"name"`
	Crossing bool   `json:"crossing"`
	// Iterations is the number of ops in each sample, as calibrated on the device.
	Iterations int64     `json:"iterations"`
	SamplesNs  []float64 `json:"samples_ns"`
	MedianNs   float64   `json:"median_ns"`
	CILowNs    float64   `json:"ci_low_ns"`
	CIHighNs   float64   `json:"ci_high_ns"`
	// CILevel is the confidence the interval really has (0.95 unless there were too few samples).
	CILevel float64 `json:"ci_level"`
	// RatioToRef is MedianNs over ref_js_loop's MedianNs; nil when ref_js_loop was not measured.
	RatioToRef *float64 `json:"ratio_to_ref"`
	// CrossingsPerMs is 1e6 / MedianNs for crossing cases, nil otherwise.
	CrossingsPerMs *float64 `json:"crossings_per_ms"`
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

// Label names the artifact in a table: "floor linux", "json linux", or the user bridge's codec.
func (a *Artifact) Label() string {
	if a.Program == ProgramFloor {
		return "floor " + a.Target
	}
	if a.Codec != "" {
		return a.Codec + " " + a.Target
	}
	return a.Program + " " + a.Target
}
