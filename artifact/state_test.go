package artifact

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// withState is two() whose process records its core, the device's state at its start and end, a mark and a retry,
// and whose run was pinned and locked.
func withState() *Artifact {
	a := two()
	core, c := 4, 30.1
	state := &DeviceState{FreqKHz: 1400000, Thermal: []Thermal{{Zone: "cpu-1-0", Celsius: 43.5}}, LoadAvg: []float64{1, 0.5, 0.25},
		Battery: &Battery{LevelPercent: 87, Celsius: &c, Status: "Discharging"}}
	end := *state
	end.FreqKHz, end.Thermal = 1100000, []Thermal{{Zone: "cpu-1-0", Celsius: 44}}
	p := &a.Processes[0]
	p.CPU, p.Start, p.End, p.Retries = &core, state, &end, 1
	p.Marks = []string{"cpu 4's clock went from 1400 MHz at its start to 1100 MHz at its end"}
	a.Settings.Clocks = &Clocks{CPU: "big", Cores: []int{4, 5, 6, 7},
		Locked: []LockedCluster{{Cores: []int{4, 5, 6, 7}, KHz: 1400000, MaxKHz: 2800000, Governor: "userspace"}}}
	a.Settings.CooldownNs = 30e9
	return a
}

// TestStateRoundTrip: the state fields are written and read back as they were; an artifact without them (every
// older one) reads with none.
func TestStateRoundTrip(t *testing.T) {
	a := withState()
	got, err := Read(writeTemp(t, a))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Processes, a.Processes) || !reflect.DeepEqual(got.Settings.Clocks, a.Settings.Clocks) || got.Settings.CooldownNs != 30e9 {
		t.Errorf("read back processes %+v, clocks %+v", got.Processes, got.Settings.Clocks)
	}
	plain, err := Read(writeTemp(t, two()))
	if err != nil || plain.Processes[0].CPU != nil || plain.Processes[0].Start != nil || plain.Settings.Clocks != nil || len(plain.MarkedProcesses()) > 0 {
		t.Errorf("an artifact without state: %+v, %v", plain.Processes, err)
	}
}

// TestValidateState: state no device reports is refused, naming the process and the field.
func TestValidateState(t *testing.T) {
	checkValidate(t, withState, []validateCase{
		{"valid", func(*Artifact) {}, ""},
		{"negative core", func(a *Artifact) { *a.Processes[0].CPU = -1 }, `processes[0]: field "cpu" is -1`},
		{"negative retries", func(a *Artifact) { a.Processes[0].Retries = -1 }, `processes[0]: field "retries" is -1`},
		{"negative frequency", func(a *Artifact) { a.Processes[0].End.FreqKHz = -5 }, `processes[0]: end: field "freq_khz" is -5`},
		{"negative load", func(a *Artifact) { a.Processes[0].Start.LoadAvg[2] = -1 }, `processes[0]: start: field "load_avg" holds -1`},
		{"battery over full", func(a *Artifact) { a.Processes[0].Start.Battery.LevelPercent = 101 },
			`processes[0]: start: battery: field "level_percent" is 101, want 0 to 100`},
		{"NaN zone", func(a *Artifact) { a.Processes[0].End.Thermal[0].Celsius = math.NaN() },
			`field "processes[0].end.thermal[0].celsius" is NaN`},
	})
}

// TestMarkedNote: one line naming every marked process with its core and why, or none.
func TestMarkedNote(t *testing.T) {
	a := withState()
	if note := a.MarkedNote(); !strings.HasPrefix(note, "1 of 1 processes did not run in the state the others ran in") ||
		!strings.Contains(note, "(process 0 (cpu 4): cpu 4's clock went from 1400 MHz at its start to 1100 MHz at its end)") {
		t.Errorf("note %q", note)
	}
	a.Processes[0].Marks = nil
	if note := a.MarkedNote(); note != "" {
		t.Errorf("note without marks %q", note)
	}
}
