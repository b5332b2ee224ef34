package targets

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// androidProps are the getprop properties an artifact records, by the key the facts script prints.
var androidProps = [][2]string{
	{"model", "ro.product.model"},
	{"manufacturer", "ro.product.manufacturer"},
	{"device", "ro.product.device"},
	{"release", "ro.build.version.release"},
	{"sdk", "ro.build.version.sdk"},
	{"fingerprint", "ro.build.fingerprint"},
	{"abi", "ro.product.cpu.abi"},
	{"qemu", "ro.kernel.qemu"},
}

// androidFactsScript adds to ProbeScript and the Linux facts (clocks, thermal zones) what Android tells through
// getprop and its services. dumpsys needs no root; a service that is missing prints nothing useful.
var androidFactsScript = sshProbeScript + func() string {
	var s strings.Builder
	for _, p := range androidProps {
		fmt.Fprintf(&s, "echo \"prop_%s=$(getprop %s)\"\n", p[0], p[1])
	}
	s.WriteString(`echo "thermal_status=$(dumpsys thermalservice 2>/dev/null | grep -m1 'Thermal Status' | cut -d: -f2)"
b=$(dumpsys battery 2>/dev/null | grep -m1 'temperature' | cut -d: -f2)
[ -z "$b" ] && [ -r /sys/class/power_supply/battery/temp ] && b=$(cat /sys/class/power_supply/battery/temp)
echo "battery_temp=$b"
true
`)
	return s.String()
}()

// thermalStatuses name the thermal service's levels (android.os.PowerManager.THERMAL_STATUS_*).
var thermalStatuses = []string{"none", "light", "moderate", "severe", "critical", "emergency", "shutdown"}

// parseAndroidFacts reads the facts script's output into a device, with warnings for unlocked clocks and
// throttling as androidx Microbenchmark gives them.
func parseAndroidFacts(out string) artifact.Device {
	d := ParseProbe([]byte(out))
	parseSSHProbe([]byte(out), &d)
	a := &artifact.Android{}
	props := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch {
		case strings.HasPrefix(k, "prop_"):
			props[strings.TrimPrefix(k, "prop_")] = v
		case k == "thermal_status":
			if n, err := strconv.Atoi(v); err == nil {
				a.ThermalStatus = &n
			}
		case k == "battery_temp":
			// dumpsys and sysfs both give tenths of a degree.
			if t, ok := finite(v); ok {
				c := t / 10
				a.BatteryCelsius = &c
			}
		}
	}
	a.Model, a.Manufacturer, a.Device = props["model"], props["manufacturer"], props["device"]
	a.Release, a.SDK, a.Fingerprint, a.ABI = props["release"], props["sdk"], props["fingerprint"], props["abi"]
	d.Android = a
	// Android emulators set ro.kernel.qemu; their numbers are the host's, through an emulator.
	d.Emulated = props["qemu"] == "1"
	if a.Release != "" {
		d.OS = "Android " + a.Release + " (SDK " + a.SDK + ")"
	}
	if a.Model != "" {
		d.CPUModel = strings.TrimSpace(a.Manufacturer+" "+a.Model) + ", " + d.CPUModel
	}
	d.Warnings = androidWarnings(d)
	return d
}

// androidWarnings says when the numbers depend on the device's state: clocks that scale, or thermal throttling.
func androidWarnings(d artifact.Device) []string {
	var w []string
	// CPUs in one cluster share a policy: say it once for all of them.
	var policies []string
	cpus := map[string][]string{}
	for _, c := range d.CPUFreqs {
		if c.MinKHz == c.MaxKHz {
			continue
		}
		p := fmt.Sprintf("%s %d-%d MHz", c.Governor, c.MinKHz/1000, c.MaxKHz/1000)
		if cpus[p] == nil {
			policies = append(policies, p)
		}
		cpus[p] = append(cpus[p], strconv.Itoa(c.CPU))
	}
	if len(policies) > 0 {
		var desc []string
		for _, p := range policies {
			desc = append(desc, "cpu"+strings.Join(cpus[p], ",")+" "+p)
		}
		w = append(w, fmt.Sprintf("clocks are not locked (%s): the CPUs change speed during the run, so compare "+
			"ratios from one run; lock the clocks on a rooted device for numbers that repeat", strings.Join(desc, "; ")))
	}
	if s := d.Android.ThermalStatus; s != nil && *s > 0 {
		name := strconv.Itoa(*s)
		if *s < len(thermalStatuses) {
			name = thermalStatuses[*s]
		}
		w = append(w, fmt.Sprintf("the device reports thermal throttling (status %s): it ran slower than it can; "+
			"let it cool down and run again", name))
	}
	return w
}
