package targets

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// TestEmulationDecisions is the decision table: the kernel's uname -m against the program's architecture, the run
// prefix, and what the device says of itself.
func TestEmulationDecisions(t *testing.T) {
	for _, c := range []struct {
		name, kernel, program, prefix string
		emulator                      bool
		want                          bool
		why                           string // in the reason, when emulated
	}{
		{"native arm64 phone", "aarch64", "aarch64", "", false, false, ""},
		{"arm64 ABI name", "aarch64", "arm64-v8a", "", false, false, ""},
		{"armv7 board", "armv7l", "arm", "", false, false, ""},
		{"armv6 board", "armv6l", "arm", "", false, false, ""},
		{"32-bit program on a 64-bit ARM kernel", "aarch64", "arm", "", false, false, ""},
		{"32-bit program on x86_64", "x86_64", "x86", "", false, false, ""},
		{"server", "x86_64", "x86_64", "", false, false, ""},
		{"arm64 program through binfmt", "x86_64", "aarch64", "", false, true, "the device's kernel is x86_64 (uname -m) and the program is aarch64"},
		{"armel program through binfmt", "x86_64", "arm", "", false, true, "the device's kernel is x86_64 (uname -m) and the program is arm:"},
		{"64-bit program on a 32-bit ARM kernel", "armv7l", "aarch64", "", false, true, "kernel is armv7l (uname -m) and the program is aarch64"},
		{"x86_64 program on an ARM kernel", "aarch64", "x86_64", "", false, true, "the program is x86_64"},
		{"qemu prefix", "x86_64", "arm", "qemu-arm -cpu cortex-a8", false, true, "the program ran under an emulator: --run-prefix qemu-arm -cpu cortex-a8"},
		{"qemu prefix by path", "aarch64", "aarch64", "taskset -c 1 /usr/bin/qemu-aarch64", false, true, "--run-prefix taskset -c 1 /usr/bin/qemu-aarch64"},
		{"taskset prefix", "aarch64", "aarch64", "taskset -c 1", false, false, ""},
		{"Android emulator", "aarch64", "aarch64", "", true, true, "ro.kernel.qemu=1"},
		{"program not known yet", "aarch64", "", "", false, false, ""},
		{"kernel not known", "", "aarch64", "", false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, why := emulation(c.kernel, c.program, strings.Fields(c.prefix), c.emulator)
			if got != c.want || (got && !strings.Contains(why, c.why)) || (!got && why != "") {
				t.Errorf("emulation(%q, %q, %q, %v) = %v, %q; want %v with %q", c.kernel, c.program, c.prefix, c.emulator, got, why, c.want, c.why)
			}
		})
	}
}

// TestCheckProgramReadsTheHeader reads this test binary's architecture and checks it against kernels.
func TestCheckProgramReadsTheHeader(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	arch, err := ProgramArch(self)
	want := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "x86", "arm": "arm"}[runtime.GOARCH]
	if err != nil || (want != "" && arch != want) {
		t.Fatalf("ProgramArch(test binary) = %q, %v; want %q", arch, err, want)
	}
	d := artifact.Device{Arch: arch}
	CheckProgram(&d, self)
	if d.Emulated || d.EmulatedReason != "" {
		t.Errorf("a program on its own architecture: %+v", d)
	}
	other := map[string]string{"x86_64": "aarch64", "aarch64": "x86_64"}[arch]
	if other == "" {
		t.Skipf("no foreign kernel to compare %s with", arch)
	}
	d = artifact.Device{Arch: other, Emulated: true, EmulatedReason: "the device says it is an emulator (ro.kernel.qemu=1)"}
	CheckProgram(&d, self)
	if !d.Emulated || !strings.HasPrefix(d.EmulatedReason, "the device says it is an emulator (ro.kernel.qemu=1); the device's kernel is "+other+" (uname -m) and the program is "+arch) {
		t.Errorf("a program for another architecture: %+v", d)
	}
	prefixed := artifact.Device{Arch: other, RunPrefix: "qemu-" + arch, Emulated: true, EmulatedReason: "the program ran under an emulator: --run-prefix qemu-" + arch}
	d = prefixed
	CheckProgram(&d, self)
	if d.EmulatedReason != prefixed.EmulatedReason || !d.Emulated {
		t.Errorf("under a qemu- prefix the prefix is the reason, not binfmt: %+v", d)
	}
	d = artifact.Device{Arch: other}
	CheckProgram(&d, "/dev/null") // no header: no verdict
	if d.Emulated {
		t.Errorf("a file that is no program: %+v", d)
	}
	if _, err := ProgramArch("/dev/null"); err == nil {
		t.Error("ProgramArch(/dev/null) gave no error")
	}
}
