package targets

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"syscall"

	"github.com/bench-bridge/bench-bridge/artifact"
	"golang.org/x/sys/unix"
)

// ProbeScript prints key=value facts about a device. It is plain POSIX sh so that the same text runs on a Linux box,
// an Android shell or a webOS busybox, and every read tolerates a missing file.
const ProbeScript = `
echo "os=$(uname -s)"
echo "kernel=$(uname -r)"
echo "arch=$(uname -m)"
[ -r /proc/sys/kernel/arch ] && echo "kernel_arch=$(cat /proc/sys/kernel/arch)"
if [ -r /etc/os-release ]; then . /etc/os-release 2>/dev/null; echo "distro=$PRETTY_NAME"; fi
if [ -r /proc/cpuinfo ]; then
  m=$(grep -m1 -iE '^(model name|hardware|processor[[:space:]]*:[[:space:]]*[a-z])' /proc/cpuinfo | cut -d: -f2-)
  echo "cpu_model=$m"
  echo "cores=$(grep -c '^processor' /proc/cpuinfo)"
fi
if command -v sysctl >/dev/null 2>&1 && [ "$(uname -s)" = Darwin ]; then
  echo "cpu_model=$(sysctl -n machdep.cpu.brand_string 2>/dev/null)"
  echo "cores=$(sysctl -n hw.ncpu 2>/dev/null)"
  echo "distro=macOS $(sw_vers -productVersion 2>/dev/null)"
fi
g=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
[ -r "$g" ] && echo "governor=$(cat "$g")"
true
`

// ParseProbe reads ProbeScript's output; later keys win, unknown keys are ignored.
func ParseProbe(out []byte) artifact.Device {
	var d artifact.Device
	var distro, kernelArch string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "os":
			d.OS = v
		case "distro":
			distro = v
		case "kernel":
			d.Kernel = v
		case "arch":
			d.Arch = v
		case "kernel_arch":
			kernelArch = v
		case "cpu_model":
			if v != "" {
				d.CPUModel = v
			}
		case "cores":
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				d.Cores = n
			}
		case "governor":
			d.Governor = v
		}
	}
	if distro != "" {
		d.OS += " (" + distro + ")"
	}
	// Under qemu-user an emulated uname answers for the emulated CPU; a kernel that could not run that natively
	// is the real one (binfmt_misc runs the userland), and the arch is the kernel's.
	if kernelArch != "" && !runsNatively(archFamily(kernelArch), archFamily(d.Arch)) {
		d.Arch = kernelArch
	}
	return d
}

// signalName names a signal the way users look it up: "SIGSEGV".
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return s.String()
}
