package artifact

import (
	"fmt"
	"strconv"
	"strings"
)

// DeviceState is the device's state at one moment beside a process: what a throttling, busy or charging device
// changes. Every field is absent where the device does not expose it.
type DeviceState struct {
	// FreqKHz is the current frequency of the process's core (cpufreq's scaling_cur_freq), in kHz.
	FreqKHz int64 `json:"freq_khz,omitempty"`
	// Thermal are the device's thermal zones.
	Thermal []Thermal `json:"thermal,omitempty"`
	// Battery is the battery's level, temperature and whether it charges.
	Battery *Battery `json:"battery,omitempty"`
	// LoadAvg is the 1, 5 and 15 minute load average (/proc/loadavg).
	LoadAvg []float64 `json:"load_avg,omitempty"`
}

// Battery is what the device's battery reports (power_supply/battery).
type Battery struct {
	// LevelPercent is the charge left, 0 to 100.
	LevelPercent int `json:"level_percent"`
	// Celsius is the battery's temperature; nil when not readable.
	Celsius *float64 `json:"celsius,omitempty"`
	// Status is the driver's word for it: Charging, Discharging, Full, Not charging.
	Status string `json:"status,omitempty"`
	// Charging is true while the battery takes charge (Status Charging): a charging phone heats up.
	Charging bool `json:"charging"`
}

// Clocks are how a run held the device's CPUs.
type Clocks struct {
	// CPU is --cpu as asked: a core's number, big or little; empty when the program was not pinned.
	CPU string `json:"cpu,omitempty"`
	// Cores are the cores the program was pinned to.
	Cores []int `json:"cores,omitempty"`
	// Locked are the clusters whose frequency the run fixed (--lock-clocks); empty when it fixed none.
	Locked []LockedCluster `json:"locked,omitempty"`
}

// LockedCluster is one cpufreq policy held at one frequency for the run.
type LockedCluster struct {
	// Cores are the cores of the policy.
	Cores []int `json:"cores"`
	// KHz is the frequency they ran at, and MaxKHz the most they can run at (cpuinfo_max_freq).
	KHz    int64 `json:"khz"`
	MaxKHz int64 `json:"max_khz,omitempty"`
	// Governor is the governor that held it: userspace (with scaling_setspeed) or performance (with min = max).
	Governor string `json:"governor"`
}

// MarkedProcesses names the processes of a that are marked, with their core and why, one each ("process 3 (cpu 4):
// cpu 4's clock went from 2800 MHz at its start to 2200 MHz at its end"); none when no process is.
func (a *Artifact) MarkedProcesses() []string {
	var out []string
	for i, p := range a.Processes {
		if len(p.Marks) == 0 {
			continue
		}
		line := "process " + strconv.Itoa(i)
		if p.CPU != nil {
			line += " (cpu " + strconv.Itoa(*p.CPU) + ")"
		}
		out = append(out, line+": "+strings.Join(p.Marks, "; "))
	}
	return out
}

// MarkedNote is the one line show and gate give a run with marked processes, or "" when it has none.
func (a *Artifact) MarkedNote() string {
	marked := a.MarkedProcesses()
	if len(marked) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d processes did not run in the state the others ran in, and their numbers are in the "+
		"artifact's statistics (%s); let the device cool down or quieten it, or measure again with --cooldown",
		len(marked), len(a.Processes), strings.Join(marked, ", "))
}

// checkState refuses state fields no device reports: a negative core, frequency, load or retry count, or a battery
// level outside 0 to 100.
func (p Process) checkState() error {
	if p.CPU != nil && *p.CPU < 0 {
		return fmt.Errorf("field \"cpu\" is %d, want a core's number", *p.CPU)
	}
	if p.Retries < 0 {
		return fmt.Errorf("field \"retries\" is %d, want a count", p.Retries)
	}
	for _, s := range []struct {
		name  string
		state *DeviceState
	}{{"start", p.Start}, {"end", p.End}} {
		if s.state == nil {
			continue
		}
		if s.state.FreqKHz < 0 {
			return fmt.Errorf("%s: field \"freq_khz\" is %d, want a frequency", s.name, s.state.FreqKHz)
		}
		for _, l := range s.state.LoadAvg {
			if l < 0 {
				return fmt.Errorf("%s: field \"load_avg\" holds %v, want a non-negative load", s.name, l)
			}
		}
		if b := s.state.Battery; b != nil && (b.LevelPercent < 0 || b.LevelPercent > 100) {
			return fmt.Errorf("%s: battery: field \"level_percent\" is %d, want 0 to 100", s.name, b.LevelPercent)
		}
	}
	return nil
}
