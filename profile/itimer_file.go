package profile

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// itimerFile is what a bench program's in-process profiler (cases/c/itimer.c) wrote: its stacks, counted, with the
// runtime address of bb_itimer_start (the anchor that undoes PIE and ASLR) and the process's executable mappings.
type itimerFile struct {
	Arch       string // x86_64, i386, aarch64, arm, arm-thumb
	Unwind     string // fp: stacks from frame pointers; pc: the sampled pc alone
	IntervalUS int
	Anchor     uint64
	Samples    uint64
	Dropped    uint64
	CPUNs      uint64
	Maps       []itimerMap
	Stacks     []itimerStack
}

type itimerMap struct {
	Start, End, Offset uint64
	Path               string
}

// itimerStack is one distinct stack: the sampled pc first, then the return addresses outwards.
type itimerStack struct {
	Count uint64
	PCs   []uint64
}

// parseItimerFile reads the file; errors name it and the line. A file without its closing "end" line is refused:
// the program died while writing it.
func parseItimerFile(name string, data []byte) (*itimerFile, error) {
	f := &itimerFile{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line, ended := 0, false
	bad := func(msg string) error { return fmt.Errorf("%s:%d: %s", name, line, msg) }
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if line == 1 {
			if sc.Text() != "bb-itimer 1" {
				return nil, bad(fmt.Sprintf("not an itimer profile (first line %q, want \"bb-itimer 1\")", tail(sc.Text())))
			}
			continue
		}
		var err error
		switch key, args := fields[0], fields[1:]; key {
		case "arch":
			f.Arch = strings.Join(args, " ")
		case "word":
		case "unwind":
			f.Unwind = strings.Join(args, " ")
		case "interval_us":
			var v uint64
			v, err = decimal(args)
			f.IntervalUS = int(v)
		case "anchor":
			f.Anchor, err = hexes(args, 1, nil)
		case "samples":
			f.Samples, err = decimal(args)
		case "dropped":
			f.Dropped, err = decimal(args)
		case "cpu_ns":
			f.CPUNs, err = decimal(args)
		case "map":
			var m itimerMap
			if len(args) < 3 {
				return nil, bad("map wants START END OFFSET [PATH]")
			}
			if m.Start, err = hexes(args[:1], 1, nil); err == nil {
				if m.End, err = hexes(args[1:2], 1, nil); err == nil {
					m.Offset, err = hexes(args[2:3], 1, nil)
				}
			}
			m.Path = strings.Join(args[3:], " ")
			f.Maps = append(f.Maps, m)
		case "stack":
			var s itimerStack
			if s.Count, err = decimal(args[:min(1, len(args))]); err == nil {
				_, err = hexes(args[1:], -1, &s.PCs)
			}
			if err == nil && len(s.PCs) == 0 {
				err = fmt.Errorf("no addresses")
			}
			f.Stacks = append(f.Stacks, s)
		case "end":
			ended = true
		default:
			return nil, bad(fmt.Sprintf("unknown record %q", key))
		}
		if err != nil {
			return nil, bad(fmt.Sprintf("%s: %v", fields[0], err))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty: the program wrote no profile", name)
	}
	if !ended {
		return nil, fmt.Errorf("%s: ends at line %d without its \"end\" record: the program stopped while writing it", name, line)
	}
	if f.Anchor == 0 {
		return nil, fmt.Errorf("%s: no anchor record: cannot place the program's addresses", name)
	}
	return f, nil
}

func decimal(args []string) (uint64, error) {
	if len(args) != 1 {
		return 0, fmt.Errorf("want one number")
	}
	return strconv.ParseUint(args[0], 10, 64)
}

// hexes parses hexadecimal addresses: exactly n of them (the first is returned), or any number into *all (n < 0).
func hexes(args []string, n int, all *[]uint64) (uint64, error) {
	if n >= 0 && len(args) != n {
		return 0, fmt.Errorf("want %d hexadecimal numbers", n)
	}
	var first uint64
	for i, a := range args {
		v, err := strconv.ParseUint(a, 16, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a hexadecimal address", a)
		}
		if i == 0 {
			first = v
		}
		if all != nil {
			*all = append(*all, v)
		}
	}
	return first, nil
}
