package targets

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// An ssh target that names no toolchain is asked what it runs when it opens. The ELF header of its /bin/sh gives the
// userland's architecture and, on 32-bit ARM, its float ABI; the dynamic loader names the C library; the kernel and
// /proc/cpuinfo say what the CPU can do beyond the userland's baseline. Under binfmt_misc and qemu-user an ARM uname
// answers for the emulated CPU while /proc/sys/kernel/arch names the real kernel's: then the userland decides alone.
// Programs are linked statically, so the board's C library is reported, never linked against.

// shellMarker ends the text part of userlandScript's output; the bytes of /bin/sh follow it.
const shellMarker = "--- /bin/sh ---"

// userlandScript prints the kernel's facts, the dynamic loaders in /lib and /lib64, then the marker line and the first
// 4 KiB of /bin/sh: its ELF header, program headers and loader's name. busybox ash runs it.
const userlandScript = `echo "uname=$(uname -m)"
echo "release=$(uname -r)"
[ -r /proc/sys/kernel/arch ] && echo "kernel_arch=$(cat /proc/sys/kernel/arch)"
[ -r /proc/cpuinfo ] && echo "features=$(grep -m1 '^Features' /proc/cpuinfo | cut -d: -f2)"
for f in /lib/ld-* /lib64/ld-*; do [ -e "$f" ] && echo "loader=$f"; done
echo "` + shellMarker + `"
dd if=/bin/sh bs=4096 count=1 2>/dev/null
`

// boardFacts are what userlandScript found on a board.
type boardFacts struct {
	uname      string   // uname -m, as the shell's uname answers (an emulator answers for its CPU)
	release    string   // uname -r
	kernelArch string   // /proc/sys/kernel/arch: the kernel's own machine, where the kernel has it
	features   []string // the Features of an ARM kernel's /proc/cpuinfo: vfp, vfpv3, neon ...
	loaders    []string // the dynamic loaders in /lib and /lib64
	shell      []byte   // the start of /bin/sh
}

// parseBoardFacts reads userlandScript's output.
func parseBoardFacts(out []byte) (boardFacts, error) {
	var f boardFacts
	text, shell, ok := bytes.Cut(out, []byte(shellMarker+"\n"))
	if !ok {
		return f, fmt.Errorf("the shell printed no %q line: %q", shellMarker, brief(string(out)))
	}
	f.shell = shell
	for _, line := range strings.Split(string(text), "\n") {
		k, v, _ := strings.Cut(line, "=")
		v = strings.TrimSpace(v)
		switch k {
		case "uname":
			f.uname = v
		case "release":
			f.release = v
		case "kernel_arch":
			f.kernelArch = v
		case "features":
			f.features = strings.Fields(v)
		case "loader":
			f.loaders = append(f.loaders, v)
		}
	}
	return f, nil
}

// shellELF is what the start of /bin/sh says about the programs the userland runs.
type shellELF struct {
	class   elf.Class
	data    elf.Data
	machine elf.Machine
	flags   uint32
	interp  string // the dynamic loader (PT_INTERP); "" for a static /bin/sh
}

// readShellELF reads the ELF header and the loader's name from the first bytes of a program. debug/elf wants the
// whole file (it reads the section headers at its end); these are the header's fields, read the same way.
func readShellELF(b []byte) (shellELF, error) {
	var e shellELF
	if len(b) < elf.EI_NIDENT || string(b[:4]) != elf.ELFMAG {
		return e, fmt.Errorf("/bin/sh is not an ELF program (it starts %q)", b[:min(len(b), 8)])
	}
	e.class, e.data = elf.Class(b[elf.EI_CLASS]), elf.Data(b[elf.EI_DATA])
	var order binary.ByteOrder = binary.LittleEndian
	if e.data == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	r := bytes.NewReader(b)
	var phoff uint64
	var phentsize, phnum int
	switch e.class {
	case elf.ELFCLASS32:
		var h elf.Header32
		if err := binary.Read(r, order, &h); err != nil {
			return e, fmt.Errorf("/bin/sh: ELF header: %w", err)
		}
		e.machine, e.flags, phoff, phentsize, phnum = elf.Machine(h.Machine), h.Flags, uint64(h.Phoff), int(h.Phentsize), int(h.Phnum)
	case elf.ELFCLASS64:
		var h elf.Header64
		if err := binary.Read(r, order, &h); err != nil {
			return e, fmt.Errorf("/bin/sh: ELF header: %w", err)
		}
		e.machine, e.flags, phoff, phentsize, phnum = elf.Machine(h.Machine), h.Flags, h.Phoff, int(h.Phentsize), int(h.Phnum)
	default:
		return e, fmt.Errorf("/bin/sh: ELF class %d is neither 32- nor 64-bit", b[elf.EI_CLASS])
	}
	for i := range phnum {
		typ, off, size, ok := progHeader(b, order, e.class, phoff+uint64(i*phentsize))
		if !ok {
			break // past the bytes read: the loader's name is looked for in /lib instead
		}
		if typ == elf.PT_INTERP && off+size <= uint64(len(b)) {
			e.interp = strings.TrimRight(string(b[off:off+size]), "\x00")
			break
		}
	}
	return e, nil
}

// progHeader reads the type, file offset and size of the program header at off.
func progHeader(b []byte, order binary.ByteOrder, class elf.Class, off uint64) (elf.ProgType, uint64, uint64, bool) {
	if off >= uint64(len(b)) {
		return 0, 0, 0, false
	}
	r := bytes.NewReader(b[off:])
	if class == elf.ELFCLASS32 {
		var p elf.Prog32
		if binary.Read(r, order, &p) != nil {
			return 0, 0, 0, false
		}
		return elf.ProgType(p.Type), uint64(p.Off), uint64(p.Filesz), true
	}
	var p elf.Prog64
	if binary.Read(r, order, &p) != nil {
		return 0, 0, 0, false
	}
	return elf.ProgType(p.Type), p.Off, p.Filesz, true
}

// ARM ELF header flags (the ARM ELF ABI): the EABI version in the top byte, and the float ABI of EABI5 programs.
const (
	armEABIMask     = 0xff000000
	armOldestEABI   = 0x04000000
	armABIFloatHard = 0x00000400
)

// The oldest kernel that Debian 12's C library (glibc 2.36) starts on: every program links it statically.
const (
	glibcOldestMajor = 3
	glibcOldestMinor = 2
)

// errNoToolchain ends the message of a board bench-bridge cannot pick a toolchain for.
const errNoToolchain = "name a toolchain for it in a config target ([targets.NAME] with kind = \"ssh\" and toolchain = ...; docs/boards.md)"

// boardChoice is the toolchain picked for a board and why, as one line: "aarch64 userland (ELF of /bin/sh), glibc
// (/lib/ld-linux-aarch64.so.1): toolchain aarch64, static".
type boardChoice struct {
	toolchain string
	why       []string
}

func (c boardChoice) String() string {
	return strings.Join(c.why, ", ") + ": toolchain " + c.toolchain + ", static"
}

// pickToolchain is the decision table: the userland's architecture and float ABI, then for 32-bit ARM what the CPU
// is (uname -m of a native ARM kernel, its Features) where that changes the pick.
func pickToolchain(f boardFacts) (boardChoice, error) {
	e, err := readShellELF(f.shell)
	if err != nil {
		return boardChoice{}, fmt.Errorf("%w; %s", err, errNoToolchain)
	}
	if err := checkKernelRelease(f.release); err != nil {
		return boardChoice{}, err
	}
	userland, err := userlandName(e)
	if err != nil {
		return boardChoice{}, fmt.Errorf("%w; %s", err, errNoToolchain)
	}
	c := boardChoice{toolchain: userland, why: []string{userland + " userland (ELF of /bin/sh)", libcOf(e.interp, f.loaders)}}
	kernel, source := f.kernelArch, "/proc/sys/kernel/arch"
	if kernel == "" {
		kernel, source = f.uname, "uname -m"
	}
	family := archFamily(userland)
	if k := archFamily(kernel); k != "" && !runsNatively(k, family) {
		c.why = append(c.why, "kernel "+kernel+" ("+source+"): emulated, so the userland alone decides")
		kernel = ""
	}
	switch family {
	case "x86_64", "x86", "aarch64":
		return c, nil
	}
	return pickARM(c, userland, kernel, f)
}

// pickARM picks among the 32-bit ARM toolchains. Debian's armhf is ARMv7 with VFPv3-D16 (the armv7 toolchain);
// on an ARMv6 CPU (Raspbian) the armv6 one. An armel userland on a CPU with VFP gets that VFP with the soft-float
// calling convention (webos: ARMv7, VFPv3-D16; armv6: VFPv2); without, or when the CPU is not known (emulated), the
// armel compiler's ARMv5TE baseline.
func pickARM(c boardChoice, userland, kernel string, f boardFacts) (boardChoice, error) {
	level := 0 // the CPU's ARM architecture version; 0 when not known
	switch archFamily(kernel) {
	case "aarch64":
		level = 8
	case "arm":
		level = armLevel(f.uname)
	}
	vfp := vfpOf(f.features)
	if level > 0 {
		cpu := fmt.Sprintf("ARMv%d CPU (uname -m %s", level, f.uname)
		if vfp != "" {
			cpu += ", " + vfp + " in /proc/cpuinfo"
		}
		c.why = append(c.why, cpu+")")
	}
	switch {
	case level > 0 && level < 5:
		return c, fmt.Errorf("%s: Debian's armel C library needs ARMv5TE or later; %s", strings.Join(c.why, ", "), errNoToolchain)
	case level == 6 && (userland == "armhf" || vfp != ""):
		c.toolchain = "armv6"
		if userland == "armhf" {
			c.why = append(c.why, "which Debian's armhf C library (ARMv7) does not run on")
		}
	case userland == "armhf":
		c.toolchain = "armv7"
	case level >= 7 && (vfp == "VFPv3" || vfp == "VFPv4"):
		c.toolchain = "webos"
		c.why = append(c.why, "VFPv3-D16 with the soft-float calls of armel")
	default:
		c.toolchain = "armel"
	}
	return c, nil
}

// userlandName names the userland by the ELF header of its shell: x86_64, x86, aarch64, armhf or armel; others are
// errors saying why no toolchain builds for them.
func userlandName(e shellELF) (string, error) {
	if e.data != elf.ELFDATA2LSB {
		return "", fmt.Errorf("/bin/sh is a big-endian %s program: Debian's cross compilers build little-endian ones", machineName(e.machine))
	}
	switch {
	case e.machine == elf.EM_X86_64 && e.class == elf.ELFCLASS64:
		return "x86_64", nil
	case e.machine == elf.EM_386:
		return "x86", nil
	case e.machine == elf.EM_AARCH64 && e.class == elf.ELFCLASS64:
		return "aarch64", nil
	case e.machine == elf.EM_ARM && e.flags&armEABIMask < armOldestEABI:
		return "", fmt.Errorf("/bin/sh is an old-ABI ARM program (ELF flags %#x): Debian's compilers build EABI programs, "+
			"which an old-ABI kernel may not run", e.flags)
	case e.machine == elf.EM_ARM && (e.flags&armABIFloatHard != 0 || strings.Contains(e.interp, "armhf")):
		return "armhf", nil
	case e.machine == elf.EM_ARM:
		return "armel", nil
	}
	return "", fmt.Errorf("/bin/sh is a %d-bit %s program: bench-bridge has no toolchain for it", classBits(e.class), machineName(e.machine))
}

// machineName is an ELF machine as people write it: "MIPS", "RISCV".
func machineName(m elf.Machine) string { return strings.TrimPrefix(m.String(), "EM_") }

func classBits(c elf.Class) int {
	if c == elf.ELFCLASS64 {
		return 64
	}
	return 32
}

// libcOf names the C library by the loader /bin/sh names, else by one found in /lib: "glibc
// (/lib/ld-linux-armhf.so.3)".
func libcOf(interp string, loaders []string) string {
	loader := interp
	if loader == "" && len(loaders) > 0 {
		loader = loaders[0]
	}
	name := path.Base(loader)
	switch {
	case loader == "":
		return "no dynamic loader in /lib (a static userland)"
	case strings.HasPrefix(name, "ld-linux"):
		return "glibc (" + loader + ")"
	case strings.HasPrefix(name, "ld-musl"):
		return "musl (" + loader + ")"
	case strings.HasPrefix(name, "ld-uClibc"):
		return "uClibc (" + loader + ")"
	}
	return "C library of " + loader
}

// armLevel is the architecture version a 32-bit ARM kernel's uname -m names: armv5tel 5, armv6l 6, armv7l 7,
// armv8l 8; 0 for anything else.
func armLevel(uname string) int {
	rest, ok := strings.CutPrefix(strings.ToLower(uname), "armv")
	if !ok {
		return 0
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, _ := strconv.Atoi(rest[:end])
	return n
}

// vfpOf names the newest VFP an ARM kernel's Features list: VFPv4, VFPv3 (vfpv3 or vfpv3d16), VFPv2 (vfp), or "".
func vfpOf(features []string) string {
	switch {
	case slices.Contains(features, "vfpv4"):
		return "VFPv4"
	case slices.Contains(features, "vfpv3") || slices.Contains(features, "vfpv3d16"):
		return "VFPv3"
	case slices.Contains(features, "vfp"):
		return "VFPv2"
	}
	return ""
}

// checkKernelRelease refuses a kernel older than the one Debian 12's C library, linked into every program, starts on.
func checkKernelRelease(release string) error {
	fields := strings.FieldsFunc(release, func(r rune) bool { return r < '0' || r > '9' })
	if len(fields) < 2 {
		return nil // not a version: let the program try
	}
	major, _ := strconv.Atoi(fields[0])
	minor, _ := strconv.Atoi(fields[1])
	if major < glibcOldestMajor || (major == glibcOldestMajor && minor < glibcOldestMinor) {
		return fmt.Errorf("kernel %s: programs linked with Debian 12's C library (glibc 2.36) need Linux %d.%d or later "+
			"(they stop with \"FATAL: kernel too old\")", release, glibcOldestMajor, glibcOldestMinor)
	}
	return nil
}

// askBoard runs userlandScript on the device and picks its toolchain.
func askBoard(ctx context.Context, r *device) (boardChoice, error) {
	var out []byte
	err := within(ctx, shortOp, "asking what it runs", func(ctx context.Context) (err error) {
		out, err = r.output(ctx, userlandScript, nil)
		return err
	})
	if err != nil {
		return boardChoice{}, r.fail("asking what it runs", err)
	}
	f, err := parseBoardFacts(out)
	if err != nil {
		return boardChoice{}, r.fail("asking what it runs", err)
	}
	c, err := pickToolchain(f)
	if err != nil {
		return boardChoice{}, r.fail("picking a toolchain", err)
	}
	return c, nil
}
