package targets

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// State is the device's state at one moment, as the state script reads it between two processes.
type State struct {
	// FreqKHz is every core's current frequency (scaling_cur_freq), by core; cores without cpufreq are absent.
	FreqKHz map[int]int64
	Thermal []artifact.Thermal
	Battery *artifact.Battery
	LoadAvg []float64
}

// For is the state as a process on core records it: that core's frequency (none when core is nil or unknown), and
// the rest of the device's state.
func (s State) For(core *int) *artifact.DeviceState {
	d := &artifact.DeviceState{Thermal: s.Thermal, Battery: s.Battery, LoadAvg: s.LoadAvg}
	if core != nil {
		d.FreqKHz = s.FreqKHz[*core]
	}
	return d
}

// DefaultSysfs is where the kernel's sysfs is mounted on a device; a spec's Sysfs can point elsewhere (a tree laid
// out as a phone's, for tests).
const DefaultSysfs = "/sys"

// stateScript reads the device's state under the sysfs root s in one short run of the shell: each core's current
// frequency, the thermal zones, the battery and the load average, one record a line. Every read tolerates a missing
// file; it runs between processes, never while one measures.
func stateScript(s string) string {
	return "s=" + shellPath(s) + "; for f in \"$s\"/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq; do " +
		"[ -r \"$f\" ] || continue; c=${f%/cpufreq/*}; echo \"freq ${c##*/cpu} $(cat \"$f\")\"; done; " +
		"for z in \"$s\"/class/thermal/thermal_zone[0-9]*; do [ -r \"$z/temp\" ] || continue; " +
		"echo \"thermal $(cat \"$z/temp\") $(cat \"$z/type\" 2>/dev/null || echo \"${z##*/}\")\"; done; " +
		"b=\"$s\"/class/power_supply/battery; [ -r \"$b/capacity\" ] && " +
		"echo \"battery $(cat \"$b/capacity\") $(cat \"$b/temp\" 2>/dev/null || echo -) $(cat \"$b/status\" 2>/dev/null)\"; " +
		"[ -r /proc/loadavg ] && echo \"load $(cat /proc/loadavg)\"; true"
}

// parseState reads stateScript's records; a record that does not parse is left out.
func parseState(out []byte) State {
	s := State{FreqKHz: map[int]int64{}}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "freq":
			if len(f) != 3 {
				continue
			}
			if c, err := strconv.Atoi(f[1]); err == nil && c >= 0 && atoi64(f[2]) > 0 {
				s.FreqKHz[c] = atoi64(f[2])
			}
		case "thermal":
			if c, ok := zoneCelsius(f[1]); ok && len(f) > 2 {
				s.Thermal = append(s.Thermal, artifact.Thermal{Zone: strings.Join(f[2:], " "), Celsius: c})
			}
		case "battery":
			s.Battery = parseBattery(f[1:])
		case "load":
			for _, w := range f[1:min(len(f), 4)] {
				if v, ok := finite(w); ok && v >= 0 {
					s.LoadAvg = append(s.LoadAvg, v)
				}
			}
		}
	}
	return s
}

// parseBattery reads "LEVEL TEMP STATUS...": the level in percent, the temperature in tenths of a degree ("-" when
// unreadable), the status as the driver words it ("Not charging").
func parseBattery(f []string) *artifact.Battery {
	level, err := strconv.Atoi(f[0])
	if err != nil || level < 0 || level > 100 {
		return nil
	}
	b := &artifact.Battery{LevelPercent: level}
	if len(f) > 1 {
		if t, ok := finite(f[1]); ok {
			c := t / 10
			b.Celsius = &c
		}
	}
	if len(f) > 2 {
		b.Status = strings.Join(f[2:], " ")
		b.Charging = b.Status == "Charging"
	}
	return b
}

// sysPath is a path under /sys in a probe script, and not /proc/sys.
var sysPath = regexp.MustCompile(`(^|[^A-Za-z0-9_])/sys/`)

// withSysfs points the /sys paths of a probe script at the sysfs root s, quoted as one word: in the probe scripts
// every /sys path stands outside quotes (TestProbeScriptsWithAHostileSysfs runs them against a root full of shell
// syntax), and the variables that hold one are expanded in double quotes.
func withSysfs(script, s string) string {
	if s == DefaultSysfs || s == "" {
		return script
	}
	// "$$" is the regexp template's escape of a "$", which the quotes then keep from the shell.
	root := strings.ReplaceAll(shellQuote(strings.TrimSuffix(s, "/")), "$", "$$")
	return sysPath.ReplaceAllString(script, "${1}"+root+"/")
}

// sysfsPath is what a spec's sysfs root may be: an absolute path of letters, digits and ._/+@,:- only.
var sysfsPath = regexp.MustCompile(`^/[A-Za-z0-9._/+@,:-]*$`)

// CheckSysfs says what is wrong with a spec's sysfs root ("" is DefaultSysfs): it goes into the scripts the device's
// shell runs, so it must be an absolute path with no character a shell reads as syntax, even where it is quoted.
func CheckSysfs(root string) error {
	if root == "" || sysfsPath.MatchString(root) {
		return nil
	}
	if !strings.HasPrefix(root, "/") {
		return errors.New("want an absolute path (the device's sysfs, default /sys)")
	}
	for _, r := range root {
		if !sysfsPath.MatchString("/" + string(r)) {
			return fmt.Errorf("%q is not allowed: the path goes to the device's shell, and may hold only letters, digits "+
				"and . _ / + @ , : -", string(r))
		}
	}
	return errors.New("not a path") // not reached: a character above was refused
}
