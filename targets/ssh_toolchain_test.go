package targets

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// shellHeader is the start of a /bin/sh as the probe reads it: an ELF header with one program header, PT_INTERP,
// when the program is dynamic. The headers are made here, with the fields of Debian 12's busybox for arm64, armhf
// and armel (dynamic, glibc), dash and busybox-static on x86_64, and an armhf program linked statically.
func shellHeader(t *testing.T, name string) []byte {
	t.Helper()
	const eabi5 = 0x05000000
	switch name {
	case "arm64-busybox":
		return elfHeader(t, elf.ELFCLASS64, elf.EM_AARCH64, 0, "/lib/ld-linux-aarch64.so.1")
	case "armhf-busybox":
		return elfHeader(t, elf.ELFCLASS32, elf.EM_ARM, eabi5|0x400, "/lib/ld-linux-armhf.so.3")
	case "armel-busybox":
		return elfHeader(t, elf.ELFCLASS32, elf.EM_ARM, eabi5|0x200, "/lib/ld-linux.so.3")
	case "armhf-static":
		return elfHeader(t, elf.ELFCLASS32, elf.EM_ARM, eabi5|0x400, "")
	case "x86_64-dash":
		return elfHeader(t, elf.ELFCLASS64, elf.EM_X86_64, 0, "/lib64/ld-linux-x86-64.so.2")
	case "x86_64-busybox-static":
		return elfHeader(t, elf.ELFCLASS64, elf.EM_X86_64, 0, "")
	}
	t.Fatalf("no header %q", name)
	return nil
}

// elfHeader is a little-endian ELF header of class with its program headers right after it: PT_INTERP naming interp
// (none when interp is empty), then PT_LOAD.
func elfHeader(t *testing.T, class elf.Class, machine elf.Machine, flags uint32, interp string) []byte {
	t.Helper()
	var ident [elf.EI_NIDENT]byte
	copy(ident[:], elf.ELFMAG)
	ident[elf.EI_CLASS], ident[elf.EI_DATA], ident[elf.EI_VERSION] = byte(class), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	types := []elf.ProgType{elf.PT_LOAD}
	if interp != "" {
		types = []elf.ProgType{elf.PT_INTERP, elf.PT_LOAD}
		interp += "\x00"
	}
	var b bytes.Buffer
	write := func(v any) {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	if class == elf.ELFCLASS32 {
		hsize, psize := binary.Size(elf.Header32{}), binary.Size(elf.Prog32{})
		end := uint32(hsize + len(types)*psize)
		write(elf.Header32{Ident: ident, Type: uint16(elf.ET_EXEC), Machine: uint16(machine), Version: uint32(elf.EV_CURRENT),
			Phoff: uint32(hsize), Flags: flags, Ehsize: uint16(hsize), Phentsize: uint16(psize), Phnum: uint16(len(types))})
		for _, typ := range types {
			write(elf.Prog32{Type: uint32(typ), Off: end, Filesz: uint32(len(interp))})
		}
	} else {
		hsize, psize := binary.Size(elf.Header64{}), binary.Size(elf.Prog64{})
		end := uint64(hsize + len(types)*psize)
		write(elf.Header64{Ident: ident, Type: uint16(elf.ET_EXEC), Machine: uint16(machine), Version: uint32(elf.EV_CURRENT),
			Phoff: uint64(hsize), Flags: flags, Ehsize: uint16(hsize), Phentsize: uint16(psize), Phnum: uint16(len(types))})
		for _, typ := range types {
			write(elf.Prog64{Type: uint32(typ), Off: end, Filesz: uint64(len(interp))})
		}
	}
	b.WriteString(interp)
	return b.Bytes()
}

// withBytes is b with the bytes from i on set to v: a header changed in one field.
func withBytes(b []byte, i int, v ...byte) []byte {
	b = slices.Clone(b)
	copy(b[i:], v)
	return b
}

// TestPickToolchain is the decision table: recorded ELF headers of /bin/sh with the uname -m, uname -r,
// /proc/sys/kernel/arch and /proc/cpuinfo Features of real boards, and of the same userlands run through binfmt_misc.
func TestPickToolchain(t *testing.T) {
	arm64, armhf, armel := shellHeader(t, "arm64-busybox"), shellHeader(t, "armhf-busybox"), shellHeader(t, "armel-busybox")
	const (
		piZero     = "half thumb fastmult vfp edsp java tls"
		cortexA8   = "swp half thumb fastmult vfp edsp thumbee neon vfpv3 tls"
		compatA53  = "half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt lpae evtstrm crc32"
		kirkwood   = "swp half thumb fastmult edsp"
		arm1136nfp = "swp half thumb fastmult edsp java"
	)
	for _, tt := range []struct {
		name      string
		facts     boardFacts
		toolchain string
		why       []string // each in the line that says why
	}{
		{"arm64 board", boardFacts{uname: "aarch64", release: "6.1.0-13-arm64", kernelArch: "aarch64", shell: arm64},
			"aarch64", []string{"aarch64 userland (ELF of /bin/sh), glibc (/lib/ld-linux-aarch64.so.1): toolchain aarch64, static"}},
		{"arm64 userland through binfmt", boardFacts{uname: "aarch64", release: "6.18.44", kernelArch: "x86_64", shell: arm64},
			"aarch64", []string{"kernel x86_64 (/proc/sys/kernel/arch): emulated"}},
		{"x86_64 server", boardFacts{uname: "x86_64", release: "6.1.0-13-amd64", kernelArch: "x86_64", shell: shellHeader(t, "x86_64-dash")},
			"x86_64", []string{"x86_64 userland (ELF of /bin/sh), glibc (/lib64/ld-linux-x86-64.so.2)"}},
		{"busybox-static board", boardFacts{uname: "x86_64", release: "6.18.44", shell: shellHeader(t, "x86_64-busybox-static")},
			"x86_64", []string{"no dynamic loader in /lib (a static userland)"}},
		{"Debian armhf on a Cortex-A8", boardFacts{uname: "armv7l", release: "5.10.168-ti-r71", kernelArch: "armv7l", features: strings.Fields(cortexA8), shell: armhf},
			"armv7", []string{"armhf userland", "glibc (/lib/ld-linux-armhf.so.3)", "ARMv7 CPU (uname -m armv7l, VFPv3 in /proc/cpuinfo)"}},
		{"armhf on a 64-bit kernel (Raspberry Pi 3)", boardFacts{uname: "armv8l", release: "6.1.21-v8+", kernelArch: "aarch64", features: strings.Fields(compatA53), shell: armhf},
			"armv7", []string{"ARMv8 CPU (uname -m armv8l, VFPv4 in /proc/cpuinfo)"}},
		{"Raspbian on a Pi Zero", boardFacts{uname: "armv6l", release: "6.1.21+", kernelArch: "armv6l", features: strings.Fields(piZero), shell: armhf},
			"armv6", []string{"ARMv6 CPU (uname -m armv6l, VFPv2 in /proc/cpuinfo)", "Debian's armhf C library (ARMv7) does not run on"}},
		{"armhf through binfmt", boardFacts{uname: "armv7l", release: "6.18.44", kernelArch: "x86_64", shell: armhf},
			"armv7", []string{"kernel x86_64 (/proc/sys/kernel/arch): emulated, so the userland alone decides"}},
		{"armhf static, loader in /lib", boardFacts{uname: "armv7l", release: "4.19.0", features: strings.Fields(cortexA8), loaders: []string{"/lib/ld-linux-armhf.so.3"}, shell: shellHeader(t, "armhf-static")},
			"armv7", []string{"armhf userland", "glibc (/lib/ld-linux-armhf.so.3)"}},
		{"armhf static, musl", boardFacts{uname: "armv7l", release: "5.4.0", loaders: []string{"/lib/ld-musl-armhf.so.1"}, shell: shellHeader(t, "armhf-static")},
			"armv7", []string{"musl (/lib/ld-musl-armhf.so.1)"}},
		{"armel on a Cortex-A8 with VFPv3", boardFacts{uname: "armv7l", release: "3.8.13-bone86", features: strings.Fields(cortexA8), shell: armel},
			"webos", []string{"armel userland", "glibc (/lib/ld-linux.so.3)", "VFPv3-D16 with the soft-float calls of armel"}},
		{"armel on ARMv7 without Features", boardFacts{uname: "armv7l", release: "4.9.0", shell: armel},
			"armel", []string{"ARMv7 CPU (uname -m armv7l)"}},
		{"armel on a Pi 1 (ARMv6, VFPv2)", boardFacts{uname: "armv6l", release: "4.19.66+", features: strings.Fields(piZero), shell: armel},
			"armv6", []string{"ARMv6 CPU (uname -m armv6l, VFPv2 in /proc/cpuinfo)"}},
		{"armel on an ARM1136 without VFP", boardFacts{uname: "armv6l", release: "3.4.0", features: strings.Fields(arm1136nfp), shell: armel},
			"armel", []string{"ARMv6 CPU (uname -m armv6l)"}},
		{"armel on a Kirkwood (ARMv5TE)", boardFacts{uname: "armv5tel", release: "3.2.0-4-kirkwood", features: strings.Fields(kirkwood), shell: armel},
			"armel", []string{"ARMv5 CPU (uname -m armv5tel)"}},
		{"armel through binfmt", boardFacts{uname: "armv7l", release: "6.18.44", kernelArch: "x86_64", shell: armel},
			"armel", []string{"emulated, so the userland alone decides"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := pickToolchain(tt.facts)
			if err != nil || c.toolchain != tt.toolchain {
				t.Fatalf("picked %q (%s), %v; want %q", c.toolchain, c, err, tt.toolchain)
			}
			for _, w := range tt.why {
				if !strings.Contains(c.String(), w) {
					t.Errorf("%q does not say %q", c, w)
				}
			}
		})
	}
}

// TestPickToolchainRefuses: boards no Debian toolchain builds for are refused with why, and what to do instead.
func TestPickToolchainRefuses(t *testing.T) {
	armel := shellHeader(t, "armel-busybox")
	const eiData, eMachine = 5, 18 // offsets in the ELF header; big-endian, EM_ARM is 0 40
	for _, tt := range []struct {
		name  string
		facts boardFacts
		want  string
	}{
		{"TouchPad's kernel", boardFacts{uname: "armv7l", release: "2.6.35-palm-tenderloin", shell: armel},
			"kernel 2.6.35-palm-tenderloin: programs linked with Debian 12's C library (glibc 2.36) need Linux 3.2 or later"},
		{"ARMv4", boardFacts{uname: "armv4tl", release: "3.16.0", shell: armel}, "Debian's armel C library needs ARMv5TE or later"},
		{"old ABI", boardFacts{uname: "armv5tel", release: "3.2.0", shell: withBytes(armel, 39, 0)}, "old-ABI ARM program (ELF flags 0x200)"},
		{"big-endian", boardFacts{uname: "armv5tel", release: "3.2.0", shell: withBytes(withBytes(armel, eiData, 2), eMachine, 0, 40)}, "big-endian ARM program"},
		{"MIPS", boardFacts{uname: "mips", release: "4.14.0", shell: withBytes(armel, eMachine, 8)}, "32-bit MIPS program: bench-bridge has no toolchain for it"},
		{"a script", boardFacts{uname: "armv7l", release: "4.14.0", shell: []byte("#!/bin/bash\nexec /bin/bash \"$@\"\n")}, "/bin/sh is not an ELF program"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := pickToolchain(tt.facts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("picked %q, %v; want an error saying %q", c.toolchain, err, tt.want)
			}
			if tt.name != "TouchPad's kernel" && !strings.Contains(err.Error(), "name a toolchain for it in a config target") {
				t.Errorf("%v: does not say what to do instead", err)
			}
		})
	}
}

// TestParseBoardFacts reads userlandScript's output as a busybox board prints it: text, the marker, raw bytes.
func TestParseBoardFacts(t *testing.T) {
	arm64 := shellHeader(t, "arm64-busybox")
	out := append([]byte("uname=aarch64\nrelease=6.18.44\nkernel_arch=x86_64\nfeatures=\nloader=/lib/ld-linux-aarch64.so.1\n"+shellMarker+"\n"), arm64...)
	f, err := parseBoardFacts(out)
	if err != nil || f.uname != "aarch64" || f.kernelArch != "x86_64" || f.release != "6.18.44" || len(f.features) != 0 ||
		!slices.Equal(f.loaders, []string{"/lib/ld-linux-aarch64.so.1"}) || !slices.Equal(f.shell, arm64) {
		t.Fatalf("%+v, %v", f, err)
	}
	if _, err := parseBoardFacts([]byte("uname=aarch64\n")); err == nil || !strings.Contains(err.Error(), shellMarker) {
		t.Errorf("no marker: %v", err)
	}
}

// TestProbeTakesTheKernelsArch: an emulated uname answers for its CPU; the kernel's own arch wins where the two cannot
// both be true, and only there (a 32-bit userland on a 64-bit ARM kernel keeps its armv8l).
func TestProbeTakesTheKernelsArch(t *testing.T) {
	for probe, want := range map[string]string{
		"arch=aarch64\nkernel_arch=x86_64\n": "x86_64",
		"arch=armv7l\nkernel_arch=x86_64\n":  "x86_64",
		"arch=armv8l\nkernel_arch=aarch64\n": "armv8l",
		"arch=x86_64\nkernel_arch=x86_64\n":  "x86_64",
		"arch=armv7l\n":                      "armv7l",
	} {
		if got := ParseProbe([]byte(probe)).Arch; got != want {
			t.Errorf("%q: arch %q, want %q", probe, got, want)
		}
	}
}

// TestSSHBoardThatNeverOpensAChannel: a target that names no toolchain asks the board at open; a server that never
// opens a channel fails the open at its bound, naming the device and the step.
func TestSSHBoardThatNeverOpensAChannel(t *testing.T) {
	shortBound(t, &openOp, 300*time.Millisecond)
	t.Setenv("SSH_AUTH_SOCK", "")
	spec := channellessSSHServer(t)
	spec.Toolchain = ""
	_, err := NewSSH(context.Background(), "board", spec, Overrides{})
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "board (bench@127.0.0.1:") ||
		!strings.Contains(err.Error(), "asking what it runs: opening an ssh session channel: no answer within 300ms") {
		t.Fatalf("open: %v", err)
	}
}
