package profile

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// itimerTool is the in-process profiler of the bench programs (cases/c/itimer.c): SIGPROF from ITIMER_PROF and
// frame-pointer stacks, for devices where perf events do not exist. It needs nothing on the device but the program;
// the host symbolises the samples against the program it built.
var itimerTool = Tool{
	Name: "itimer",
	Record: func(argv []string, data string, _ bool) []string {
		return append(append([]string{}, argv...), "--itimer", data)
	},
	InProcess: true,
	Period:    time.Millisecond, // a SIGPROF per millisecond of CPU time, at most one per kernel tick
}

// symbolizer places a sample's addresses in the objects they belong to: the program that was built (through the
// anchor, which undoes PIE and ASLR) and the shared libraries it mapped, as libFile finds them here.
type symbolizer struct {
	prog     *elfSymbols
	progPath string // the program's path on the device, as its mappings name it
	bias     uint64
	arm      bool
	maps     []itimerMap
	libFile  LibFile
	libs     map[string]*elfSymbols
}

// LibFile returns a local copy of a file the program mapped on the device (the file itself when the device is this
// machine, else one pulled from it), or "" when there is none.
type LibFile func(devicePath string) string

// anchorSymbol is the function whose runtime address the profile records.
const anchorSymbol = "bb_itimer_start"

func newSymbolizer(f *itimerFile, program string, libFile LibFile) (*symbolizer, error) {
	prog, err := openSymbols(program)
	if err != nil {
		return nil, fmt.Errorf("symbolising against %s: %w", program, err)
	}
	at, ok := prog.symbolValue(anchorSymbol)
	if !ok {
		return nil, fmt.Errorf("symbolising against %s: it has no %s: not the program that wrote the profile", program, anchorSymbol)
	}
	z := &symbolizer{prog: prog, arm: strings.HasPrefix(f.Arch, "arm"), maps: f.Maps, libFile: libFile, libs: map[string]*elfSymbols{}}
	anchor := f.Anchor
	if z.arm {
		anchor &^= 1
	}
	z.bias = anchor - at
	if m := z.mapOf(anchor); m != nil {
		z.progPath = m.Path
	}
	return z, nil
}

func (z *symbolizer) mapOf(pc uint64) *itimerMap {
	for i := range z.maps {
		if m := &z.maps[i]; pc >= m.Start && pc < m.End {
			return m
		}
	}
	return nil
}

// place returns the object that holds pc and pc as that object's virtual address; obj is nil for an address in
// something that cannot be read here, and label then names it.
func (z *symbolizer) place(pc uint64) (obj *elfSymbols, vaddr uint64, label string) {
	m := z.mapOf(pc)
	if m == nil && len(z.maps) > 0 {
		return nil, 0, "[unknown]"
	}
	if m == nil || m.Path == z.progPath {
		return z.prog, pc - z.bias, "[" + path.Base(z.prog.path) + "]"
	}
	label = "[anonymous]" // code the process made itself, or an emulator's
	if m.Path != "" {
		label = "[" + path.Base(m.Path) + "]"
	}
	if z.libFile == nil || !strings.HasPrefix(m.Path, "/") {
		return nil, 0, label
	}
	lib, seen := z.libs[m.Path]
	if !seen {
		if local := z.libFile(m.Path); local != "" {
			lib, _ = openSymbols(local)
		}
		z.libs[m.Path] = lib
	}
	if lib == nil {
		return nil, 0, label
	}
	v, ok := lib.vaddr(pc - m.Start + m.Offset)
	if !ok {
		return nil, 0, label
	}
	return lib, v, label
}

// name returns the function at pc; a return address (ret) is looked up one byte back, inside its call.
func (z *symbolizer) name(pc uint64, ret bool) (string, *elfSymbols, uint64) {
	if z.arm {
		pc &^= 1
	}
	if ret && pc > 0 {
		pc--
	}
	obj, v, label := z.place(pc)
	if obj == nil {
		return label, nil, 0
	}
	if n := obj.lookup(v); n != "" {
		return n, obj, v
	}
	return label, nil, 0
}

// itimerReport is a symbolised profile: frames by self share, and the text saved as the raw output.
type itimerReport struct {
	frames   []Frame
	stacks   Stacks
	text     []byte
	warnings []string
}

// itimerTally is the samples counted by function: as the sampled one (self), by pc within it (its hottest line),
// and by whole stack (folded, outermost first).
type itimerTally struct {
	total  uint64
	self   map[string]uint64
	hot    map[string]map[uint64]uint64
	where  map[string]*elfSymbols
	folded Stacks
}

func tally(f *itimerFile, z *symbolizer) *itimerTally {
	t := &itimerTally{self: map[string]uint64{}, hot: map[string]map[uint64]uint64{}, where: map[string]*elfSymbols{}, folded: Stacks{}}
	for _, s := range f.Stacks {
		names := make([]string, len(s.PCs))
		for i, pc := range s.PCs {
			n, obj, v := z.name(pc, i > 0)
			names[len(names)-1-i] = n
			if i == 0 && obj != nil {
				if t.hot[n] == nil {
					t.hot[n] = map[uint64]uint64{}
				}
				t.hot[n][v] += s.Count
				t.where[n] = obj
			}
		}
		t.self[names[len(names)-1]] += s.Count
		t.folded[strings.Join(names, ";")] += s.Count
		t.total += s.Count
	}
	return t
}

// symbolizeItimer reads an itimer file and symbolises it against program (the binary as built on this machine).
// libFile finds the shared libraries it mapped (nil: name them by their mapping). emulated is the run's
// emulated_reason, or "".
func symbolizeItimer(name string, data []byte, program string, libFile LibFile, emulated string) (*itimerReport, error) {
	f, err := parseItimerFile(name, data)
	if err != nil {
		return nil, err
	}
	z, err := newSymbolizer(f, program, libFile)
	if err != nil {
		return nil, err
	}
	t := tally(f, z)
	if t.total == 0 {
		return nil, fmt.Errorf("%s: no samples: the loop used no CPU time the timer saw", name)
	}
	rep := &itimerReport{}
	for n, c := range t.self {
		rep.frames = append(rep.frames, Frame{Symbol: n, Self: 100 * float64(c) / float64(t.total)})
	}
	sort.SliceStable(rep.frames, func(i, j int) bool {
		a, b := rep.frames[i], rep.frames[j]
		return a.Self > b.Self || a.Self == b.Self && a.Symbol < b.Symbol
	})
	if f.Dropped > 0 {
		rep.warnings = append(rep.warnings, fmt.Sprintf("%d samples were dropped: the program's buffer was full; profile for fewer seconds", f.Dropped))
	}
	stacks := "stacks from frame pointers"
	if f.Unwind == "pc" {
		stacks = "the sampled pc alone: gcc's Thumb frame pointer does not chain"
		rep.warnings = append(rep.warnings, "the program samples its pc alone ("+f.Arch+": gcc's Thumb frame pointer does not chain): self shares, no callers")
	}
	var b bytes.Buffer
	cpu := float64(f.CPUNs) / 1e9
	fmt.Fprintf(&b, "# bench-bridge itimer profile: %d samples over %.2fs of CPU time", t.total, cpu)
	if cpu > 0 {
		fmt.Fprintf(&b, " (%.0f per second; asked for one every %dus)", float64(t.total)/cpu, f.IntervalUS)
	}
	fmt.Fprintf(&b, ", %d dropped\n# program: %s (%s; %s)\n", f.Dropped, program, f.Arch, stacks)
	if emulated != "" {
		fmt.Fprintf(&b, "# emulated: %s: this profiles the emulator, not a device\n", emulated)
	}
	t.write(&b, rep.frames)
	rep.text, rep.stacks = b.Bytes(), t.folded
	return rep, nil
}

// write prints every function with its self share, samples and hottest line, then the folded stacks.
func (t *itimerTally) write(b *bytes.Buffer, frames []Frame) {
	fmt.Fprintf(b, "#\n# %7s %8s  %-40s %s\n", "self", "samples", "function", "hottest line")
	for _, fr := range frames {
		fmt.Fprintf(b, "  %6.2f%% %8d  %-40s %s\n", fr.Self, t.self[fr.Symbol], fr.Symbol, hottestLine(t.hot[fr.Symbol], t.where[fr.Symbol]))
	}
	fmt.Fprintf(b, "#\n")
	t.folded.writeFolded(b)
}

// hottestLine is the source line of the pc sampled most often in a function, when its object has line tables.
func hottestLine(pcs map[uint64]uint64, obj *elfSymbols) string {
	if obj == nil || obj.dw == nil {
		return ""
	}
	var best, n uint64
	for pc, c := range pcs {
		if c > n || c == n && pc < best {
			best, n = pc, c
		}
	}
	return obj.line(best)
}
