package profile

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// elfSymbols are one ELF object's functions, for turning addresses (as the object's own virtual addresses) into
// names, and its line table for the lines.
type elfSymbols struct {
	path  string
	funcs []elfFunc // sorted by address, one per address
	loads []elf.ProgHeader
	arm   bool // function symbols carry the Thumb bit
	dw    *dwarf.Data
	units []unitRange
}

type elfFunc struct {
	addr, size uint64
	end        uint64 // the end of what it covers: addr + size, or for an unsized symbol the end of its section
	name       string
	bind       elf.SymBind
}

type unitRange struct {
	lo, hi uint64
	cu     *dwarf.Entry
}

// debugRoot is where Debian's -dbg and -dbgsym packages put detached symbols, by build ID, as perf and gdb look
// them up.
var debugRoot = "/usr/lib/debug/.build-id"

// openSymbols reads path's function symbols (its .symtab, else the detached debug file its build ID names, else its
// .dynsym) and its DWARF line tables when it has them.
func openSymbols(path string) (*elfSymbols, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &elfSymbols{path: path, arm: f.Machine == elf.EM_ARM}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			s.loads = append(s.loads, p.ProgHeader)
		}
	}
	syms, _ := f.Symbols()
	if len(syms) == 0 {
		if dbg := debugFile(f); dbg != "" {
			if df, err := elf.Open(dbg); err == nil {
				syms, _ = df.Symbols()
				df.Close()
			}
		}
	}
	if len(syms) == 0 {
		syms, _ = f.DynamicSymbols()
	}
	if len(syms) == 0 {
		return nil, fmt.Errorf("%s has no symbols (stripped?)", path)
	}
	s.addFuncs(syms, f.Sections)
	if dw, err := f.DWARF(); err == nil {
		s.dw = dw
		s.readUnits()
	}
	return s, nil
}

// debugFile returns the detached debug file of f's build ID, or "".
func debugFile(f *elf.File) string {
	sec := f.Section(".note.gnu.build-id")
	if sec == nil {
		return ""
	}
	note, err := sec.Data()
	// A note: namesz, descsz, type (4 bytes each), "GNU\0", then the ID.
	if err != nil || len(note) < 16+2 {
		return ""
	}
	id := hex.EncodeToString(note[16:])
	p := filepath.Join(debugRoot, id[:2], id[2:]+".debug")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// addFuncs keeps the function symbols, one per address: where several name one address (aliases such as
// __GI___libc_malloc and malloc), the one perf shows (tools/perf/util/symbol.c, choose_best_symbol): a sized one,
// a strong one, a global one, the one with fewer leading underscores, the longest name.
// The PLT's stubs have no symbols; they are named [plt], as they would otherwise fall to the symbol before them.
func (s *elfSymbols) addFuncs(syms []elf.Symbol, sections []*elf.Section) {
	byAddr := map[uint64]elfFunc{}
	for _, sec := range sections {
		if strings.HasPrefix(sec.Name, ".plt") && sec.Addr != 0 {
			byAddr[sec.Addr] = elfFunc{addr: sec.Addr, size: sec.Size, end: sec.Addr + sec.Size, name: "[plt]"}
		}
	}
	for _, sym := range syms {
		typ := elf.ST_TYPE(sym.Info)
		if typ != elf.STT_FUNC && typ != elf.STT_GNU_IFUNC || sym.Section == elf.SHN_UNDEF || sym.Value == 0 {
			continue
		}
		fn := elfFunc{addr: sym.Value, size: sym.Size, name: sym.Name, bind: elf.ST_BIND(sym.Info)}
		if s.arm {
			fn.addr &^= 1
		}
		fn.end = fn.addr + fn.size
		if i := int(sym.Section); fn.size == 0 && i < len(sections) {
			fn.end = sections[i].Addr + sections[i].Size
		}
		if old, ok := byAddr[fn.addr]; !ok || better(fn, old) {
			byAddr[fn.addr] = fn
		}
	}
	for _, fn := range byAddr {
		s.funcs = append(s.funcs, fn)
	}
	sort.Slice(s.funcs, func(i, j int) bool { return s.funcs[i].addr < s.funcs[j].addr })
}

func better(a, b elfFunc) bool {
	switch {
	case (a.size > 0) != (b.size > 0):
		return a.size > 0
	case (a.bind == elf.STB_WEAK) != (b.bind == elf.STB_WEAK):
		return b.bind == elf.STB_WEAK
	case (a.bind == elf.STB_GLOBAL) != (b.bind == elf.STB_GLOBAL):
		return a.bind == elf.STB_GLOBAL
	case underscores(a.name) != underscores(b.name):
		return underscores(a.name) < underscores(b.name)
	}
	return len(a.name) > len(b.name)
}

func underscores(s string) int {
	n := 0
	for n < len(s) && s[n] == '_' {
		n++
	}
	return n
}

// lookup names the function that holds addr (a virtual address of the object), or "".
func (s *elfSymbols) lookup(addr uint64) string {
	i := sort.Search(len(s.funcs), func(i int) bool { return s.funcs[i].addr > addr }) - 1
	if i < 0 {
		return ""
	}
	if addr >= s.funcs[i].end {
		return ""
	}
	return s.funcs[i].name
}

// vaddr turns an offset in the object's file into its virtual address, through the loadable segment that holds it.
func (s *elfSymbols) vaddr(off uint64) (uint64, bool) {
	for _, p := range s.loads {
		if off >= p.Off && off < p.Off+p.Filesz {
			return off - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

// symbolValue is the address the object gives a function, without the Thumb bit.
func (s *elfSymbols) symbolValue(name string) (uint64, bool) {
	for _, fn := range s.funcs {
		if fn.name == name {
			return fn.addr, true
		}
	}
	return 0, false
}

// readUnits lists each compile unit's address ranges, so that a line lookup opens one unit's line table.
func (s *elfSymbols) readUnits() {
	r := s.dw.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			return
		}
		if e.Tag == dwarf.TagCompileUnit {
			ranges, _ := s.dw.Ranges(e)
			for _, rg := range ranges {
				s.units = append(s.units, unitRange{lo: rg[0], hi: rg[1], cu: e})
			}
		}
		r.SkipChildren()
	}
}

// line returns "file.c:123" for addr from the DWARF line tables, or "".
func (s *elfSymbols) line(addr uint64) string {
	for _, u := range s.units {
		if addr < u.lo || addr >= u.hi {
			continue
		}
		lr, err := s.dw.LineReader(u.cu)
		if err != nil || lr == nil {
			return ""
		}
		var le dwarf.LineEntry
		if lr.SeekPC(addr, &le) != nil || le.File == nil {
			return ""
		}
		return fmt.Sprintf("%s:%d", filepath.Base(le.File.Name), le.Line)
	}
	return ""
}
