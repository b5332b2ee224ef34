package targets

import (
	"debug/elf"
	"debug/macho"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// An emulator's numbers are the host's, through the emulator: the artifact must say so, and why. A run is emulated
// when the device says it is an emulator (Android's ro.kernel.qemu=1), when the run prefix is a qemu- command, or
// when the program is built for another architecture than the device's kernel (uname -m), which then runs it
// through binfmt_misc and qemu-user, the way a board does.

// archFamily names an architecture the same way for uname -m, ELF headers and toolchains: aarch64, arm, x86_64,
// x86; anything else as it is.
func archFamily(arch string) string {
	a := strings.ToLower(strings.TrimSpace(arch))
	switch {
	case a == "aarch64" || a == "arm64" || a == "arm64-v8a" || a == "aarch64_be" || a == "armv8b":
		return "aarch64"
	case strings.HasPrefix(a, "arm"):
		return "arm" // armv7l, armv6l, armv5tel, armv8l (a 32-bit kernel on ARMv8), armeabi-v7a
	case a == "x86_64" || a == "amd64" || a == "x86-64":
		return "x86_64"
	case a == "x86" || a == "i386" || a == "i486" || a == "i586" || a == "i686":
		return "x86"
	}
	return a
}

// runsNatively reports whether a kernel of one family runs programs of another without an emulator: a 64-bit
// kernel runs its 32-bit programs (AArch32 and x86 compatibility modes).
func runsNatively(kernel, program string) bool {
	return kernel == program || (kernel == "aarch64" && program == "arm") || (kernel == "x86_64" && program == "x86")
}

// emulation decides whether a run is emulated and gives the reasons. kernel is uname -m on the device, program the
// program's architecture ("" when not known yet), prefix the run prefix's words, emulator whether the device says it
// is one. A program for another architecture run under a qemu- prefix is the prefix's doing, not binfmt's.
func emulation(kernel, program string, prefix []string, emulator bool) (bool, string) {
	var why []string
	if emulator {
		why = append(why, "the device says it is an emulator (ro.kernel.qemu=1)")
	}
	if qemuPrefix(prefix) != "" {
		why = append(why, "the program ran under an emulator: --run-prefix "+strings.Join(prefix, " "))
	} else if k, p := archFamily(kernel), archFamily(program); k != "" && p != "" && !runsNatively(k, p) {
		why = append(why, fmt.Sprintf("the device's kernel is %s (uname -m) and the program is %s: it ran through "+
			"binfmt_misc and an emulator, not on the device's CPU", kernel, p))
	}
	return len(why) > 0, strings.Join(why, "; ")
}

// qemuPrefix is the qemu- command among a run prefix's words, or "".
func qemuPrefix(prefix []string) string {
	for _, w := range prefix {
		if strings.HasPrefix(filepath.Base(w), "qemu-") {
			return filepath.Base(w)
		}
	}
	return ""
}

// ProgramArch reads a program's architecture from its ELF or Mach-O header: aarch64, arm, x86_64, x86, or the
// header's own name for others.
func ProgramArch(file string) (string, error) {
	if f, err := elf.Open(file); err == nil {
		defer f.Close()
		switch f.Machine {
		case elf.EM_AARCH64:
			return "aarch64", nil
		case elf.EM_ARM:
			return "arm", nil
		case elf.EM_X86_64:
			return "x86_64", nil
		case elf.EM_386:
			return "x86", nil
		}
		return strings.ToLower(strings.TrimPrefix(f.Machine.String(), "EM_")), nil
	}
	f, err := macho.Open(file)
	if err != nil {
		return "", fmt.Errorf("%s is neither an ELF nor a Mach-O program", file)
	}
	defer f.Close()
	switch f.Cpu {
	case macho.CpuArm64:
		return "aarch64", nil
	case macho.CpuAmd64:
		return "x86_64", nil
	}
	return strings.ToLower(f.Cpu.String()), nil
}

// CheckProgram marks d emulated when the program at the local path is built for another architecture than the
// device's kernel, adding the reason to those the device gave; a program of unknown format changes nothing.
func CheckProgram(d *artifact.Device, program string) {
	arch, err := ProgramArch(program)
	if err != nil {
		return
	}
	if emulated, why := emulation(d.Arch, arch, strings.Fields(d.RunPrefix), false); emulated && qemuPrefix(strings.Fields(d.RunPrefix)) == "" {
		d.Emulated = true
		if d.EmulatedReason != "" {
			why = d.EmulatedReason + "; " + why
		}
		d.EmulatedReason = why
	}
}
