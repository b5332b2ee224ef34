package targets

import (
	"math"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// sshProbeScript adds to ProbeScript what a Linux device over a shell can tell: load, libc, every CPU's cpufreq
// state and the thermal zones. Busybox ash runs it; every read tolerates a missing file.
const sshProbeScript = `
[ -r /proc/loadavg ] && echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
l=$(getconf GNU_LIBC_VERSION 2>/dev/null) || l=""
[ -z "$l" ] && l=$(ldd --version 2>&1 | head -n1 | grep -iE 'libc|musl')
[ -z "$l" ] && [ -e /lib/libc.so.6 ] && l=$(readlink /lib/libc.so.6 2>/dev/null)
[ -n "$l" ] && echo "libc=$l"
for c in /sys/devices/system/cpu/cpu[0-9]*; do
  f=$c/cpufreq
  [ -d "$f" ] || continue
  echo "cpufreq=${c##*cpu} $(cat "$f"/scaling_governor 2>/dev/null || echo -) $(cat "$f"/scaling_cur_freq 2>/dev/null || echo 0) $(cat "$f"/scaling_min_freq 2>/dev/null || echo 0) $(cat "$f"/scaling_max_freq 2>/dev/null || echo 0)"
done
for z in /sys/class/thermal/thermal_zone*; do
  [ -r "$z"/temp ] && echo "thermal=$(cat "$z"/temp 2>/dev/null) $(cat "$z"/type 2>/dev/null || echo "${z##*/}")"
done
true
`

// parseSSHProbe reads sshProbeScript's lines into d.
func parseSSHProbe(out []byte, d *artifact.Device) {
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(line, "=")
		v = strings.TrimSpace(v)
		switch k {
		case "loadavg":
			d.LoadAvg = v
		case "libc":
			d.Libc = v
		case "cpufreq":
			f := strings.Fields(v)
			if len(f) != 5 {
				continue
			}
			cpu, err := strconv.Atoi(f[0])
			if err != nil || cpu < 0 {
				continue
			}
			c := artifact.CPUFreq{CPU: cpu, CurKHz: atoi64(f[2]), MinKHz: atoi64(f[3]), MaxKHz: atoi64(f[4])}
			if f[1] != "-" {
				c.Governor = f[1]
			}
			d.CPUFreqs = append(d.CPUFreqs, c)
		case "thermal":
			temp, zone, _ := strings.Cut(v, " ")
			if c, ok := zoneCelsius(temp); ok {
				d.Thermal = append(d.Thermal, artifact.Thermal{Zone: strings.TrimSpace(zone), Celsius: c})
			}
		}
	}
}

// zoneCelsius reads a thermal zone's temp: zones report millidegrees; a few old drivers report whole degrees.
func zoneCelsius(temp string) (float64, bool) {
	c, ok := finite(temp)
	if ok && (c > 1000 || c < -1000) {
		c /= 1000
	}
	return c, ok
}

// atoi64 reads a frequency in kHz; anything but a non-negative integer reads as 0 (unknown).
func atoi64(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// finite parses a decimal reading that an artifact can hold: NaN and infinities (strconv reads "nan" and "inf") are
// a broken sensor, not a temperature.
func finite(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}
