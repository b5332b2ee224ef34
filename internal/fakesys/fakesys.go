// Package fakesys lays out, for tests, the sysfs files a phone's kernel shows of its CPUs, thermal zones and battery:
// this machine has no cpufreq, so what bench-bridge reads and sets there is tested against a tree of plain files laid
// out the same way (a target's sysfs root pointed at it). The files hold what the kernel would print; writing one
// changes what it reads, and nothing else (no governor reacts).
package fakesys

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The phone is an 8-core big.LITTLE device: cpu0-3 little cores of one cpufreq policy (policy0) up to 1.8 GHz,
// cpu4-7 big cores of another (policy4) up to 2.8 GHz, both under schedutil.
const (
	LittleMaxKHz = 1800000
	BigMaxKHz    = 2800000
	// LittleLockKHz and BigLockKHz are the lowest frequencies of each list at least half the top one: where
	// bench-bridge locks each cluster.
	LittleLockKHz = 900000
	BigLockKHz    = 1400000
	// CurKHz are the frequencies scaling_cur_freq shows.
	LittleCurKHz = 1200000
	BigCurKHz    = 2200000
)

// Policies are the cpufreq policy directories, under devices/system/cpu/cpufreq, and their cores.
var Policies = map[string][]int{"policy0": {0, 1, 2, 3}, "policy4": {4, 5, 6, 7}}

// Settings are the files a clock lock changes, per policy, as the phone starts with them.
var Settings = map[string]map[string]string{
	"policy0": {"scaling_governor": "schedutil", "scaling_min_freq": "300000", "scaling_max_freq": "1800000",
		"scaling_setspeed": "<unsupported>"},
	"policy4": {"scaling_governor": "schedutil", "scaling_min_freq": "700000", "scaling_max_freq": "2800000",
		"scaling_setspeed": "<unsupported>"},
}

// policyFiles are each policy's files beyond its Settings.
var policyFiles = map[string]map[string]string{
	"policy0": {"cpuinfo_max_freq": "1800000", "cpuinfo_min_freq": "300000", "scaling_cur_freq": "1200000",
		"scaling_available_frequencies": "300000 600000 900000 1200000 1500000 1800000",
		"scaling_available_governors":   "userspace performance schedutil", "related_cpus": "0 1 2 3",
		"affected_cpus": "0 1 2 3"},
	"policy4": {"cpuinfo_max_freq": "2800000", "cpuinfo_min_freq": "700000", "scaling_cur_freq": "2200000",
		"scaling_available_frequencies": "700000 1100000 1400000 1800000 2200000 2800000",
		"scaling_available_governors":   "userspace performance schedutil", "related_cpus": "4 5 6 7",
		"affected_cpus": "4 5 6 7"},
}

// Thermal are the phone's thermal zones: type and temp (millidegrees), in zone order.
var Thermal = [][2]string{{"cpu-0-0", "41000"}, {"cpu-1-0", "43500"}, {"battery", "30100"}}

// Battery is power_supply/battery: capacity (percent), temp (tenths of a degree) and status.
var Battery = map[string]string{"capacity": "87", "temp": "301", "status": "Discharging"}

// Phone lays the tree out under dir: devices/system/cpu/cpuN (cpu_capacity, and cpufreq as a link to its policy, as
// the kernel shows it), devices/system/cpu/cpufreq/policyN, class/thermal/thermal_zoneN and
// class/power_supply/battery.
func Phone(dir string) error {
	cpu := filepath.Join(dir, "devices/system/cpu")
	for policy, cores := range Policies {
		files := map[string]string{}
		for k, v := range Settings[policy] {
			files[k] = v
		}
		for k, v := range policyFiles[policy] {
			files[k] = v
		}
		if err := write(filepath.Join(cpu, "cpufreq", policy), files); err != nil {
			return err
		}
		capacity := "1024"
		if policy == "policy0" {
			capacity = "430"
		}
		for _, c := range cores {
			core := filepath.Join(cpu, fmt.Sprintf("cpu%d", c))
			if err := write(core, map[string]string{"cpu_capacity": capacity}); err != nil {
				return err
			}
			if err := os.Symlink("../cpufreq/"+policy, filepath.Join(core, "cpufreq")); err != nil {
				return err
			}
		}
	}
	for i, z := range Thermal {
		if err := write(filepath.Join(dir, fmt.Sprintf("class/thermal/thermal_zone%d", i)), map[string]string{"type": z[0], "temp": z[1]}); err != nil {
			return err
		}
	}
	return write(filepath.Join(dir, "class/power_supply/battery"), Battery)
}

// write makes dir and a file in it per entry, each value ending with a newline as the kernel prints it.
func write(dir string, files map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, v := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Read returns what the policy's file holds, without its newline; an unreadable file reads as "missing: ...".
func Read(dir, policy, file string) string {
	b, err := os.ReadFile(filepath.Join(dir, "devices/system/cpu/cpufreq", policy, file))
	if err != nil {
		return "missing: " + err.Error()
	}
	return strings.TrimSpace(string(b))
}

// Changed lists every file of Settings whose content differs from the phone's start, as "policy/file: value".
func Changed(dir string) []string {
	var out []string
	for _, policy := range []string{"policy0", "policy4"} {
		for _, file := range []string{"scaling_governor", "scaling_min_freq", "scaling_max_freq", "scaling_setspeed"} {
			if v := Read(dir, policy, file); v != Settings[policy][file] {
				out = append(out, policy+"/"+file+": "+v)
			}
		}
	}
	return out
}
