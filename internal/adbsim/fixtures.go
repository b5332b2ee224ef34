package adbsim

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Emulator returns the options of an arm64 Android emulator image (ro.kernel.qemu=1, as emulators set it) whose
// programs run under qemu-aarch64: four CPUs at unlocked clocks, two thermal zones, a battery.
func Emulator() Options {
	props := map[string]string{
		"ro.product.name":          "sdk_gphone64_arm64",
		"ro.product.model":         "sdk_gphone64_arm64",
		"ro.product.device":        "emu64a",
		"ro.product.manufacturer":  "Google",
		"ro.build.version.release": "14",
		"ro.build.version.sdk":     "34",
		"ro.build.fingerprint":     "google/sdk_gphone64_arm64/emu64a:14/UE1A.230829.036/10795394:userdebug/dev-keys",
		"ro.product.cpu.abi":       "arm64-v8a",
		"ro.kernel.qemu":           "1",
		"ro.hardware":              "ranchu",
	}
	files := map[string]string{
		"/sys/class/thermal/thermal_zone0/type": "cpu-thermal\n",
		"/sys/class/thermal/thermal_zone0/temp": "41500\n",
		"/sys/class/thermal/thermal_zone1/type": "battery\n",
		"/sys/class/thermal/thermal_zone1/temp": "29000\n",
		"/sys/class/power_supply/battery/temp":  "285\n",
	}
	var cpuinfo strings.Builder
	for cpu := 0; cpu < 4; cpu++ {
		fmt.Fprintf(&cpuinfo, "processor\t: %d\nBogoMIPS\t: 125.00\nFeatures\t: fp asimd evtstrm\nCPU part\t: 0xd08\n\n", cpu)
		dir := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq/", cpu)
		files[dir+"scaling_governor"] = "schedutil\n"
		files[dir+"scaling_cur_freq"] = fmt.Sprintf("%d\n", 1200000+cpu*100000)
		files[dir+"scaling_min_freq"] = "300000\n"
		files[dir+"scaling_max_freq"] = "1800000\n"
	}
	files["/proc/cpuinfo"] = cpuinfo.String() + "Hardware\t: ranchu\n"
	return Options{
		Props: props, Files: files,
		Uname: [3]string{"Linux", "6.1.23-android14-4-00257-g7e35917775b8-ab9964412", "aarch64"},
		QEMU:  []string{"qemu-aarch64"},
	}
}

// layout makes the device's filesystem: fixtures, /data/local/tmp, and the commands an Android shell has that this
// machine's does not (getprop, dumpsys) or answers differently (uname).
func (d *Device) layout() error {
	for _, dir := range []string{"data/local/tmp", "system/bin", "sdcard"} {
		if err := os.MkdirAll(filepath.Join(d.root, dir), 0o755); err != nil {
			return err
		}
	}
	for p, content := range d.opts.Files {
		dst := d.hostPath(p)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, []byte(content), 0o644); err != nil {
			return err
		}
	}
	var props strings.Builder
	keys := make([]string, 0, len(d.opts.Props))
	for k := range d.opts.Props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&props, "%s=%s\n", k, d.opts.Props[k])
	}
	propFile := filepath.Join(d.root, "system", "build.prop")
	u := d.opts.Uname
	thermal := strconv.Itoa(d.opts.ThermalStatus)
	battery := strings.TrimSpace(d.opts.Files["/sys/class/power_supply/battery/temp"])
	scripts := map[string]string{
		"getprop": `if [ $# -eq 0 ]; then sed 's/^\([^=]*\)=\(.*\)$/[\1]: [\2]/' ` + propFile + `
else v=$(grep -m1 "^$1=" ` + propFile + ` | cut -d= -f2-); echo "${v:-$2}"; fi
`,
		"uname": `case "$1" in -s|"") echo '` + u[0] + `';; -r) echo '` + u[1] + `';; -m) echo '` + u[2] + `';;
-a) echo '` + u[0] + ` localhost ` + u[1] + ` ` + u[2] + `';; esac
`,
		"dumpsys": `case "$1" in
thermalservice) printf 'IsStatusOverride: false\nThermal Status: ` + thermal + `\n';;
battery) printf 'Current Battery Service state:\n  AC powered: true\n  level: 100\n  temperature: ` + battery + `\n';;
*) echo "Can't find service: $1"; exit 1;; esac
`,
	}
	if err := os.WriteFile(propFile, []byte(props.String()), 0o644); err != nil {
		return err
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(d.root, "system", "bin", name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			return err
		}
	}
	return nil
}
