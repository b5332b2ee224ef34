package runner

import (
	"errors"
	"fmt"
	"slices"
)

// Grammar is the order of the records of a `run` output after its first line (docs/protocol.md), the one grammar of
// the protocol: the runner follows it as it reads a program, and `bench-bridge check` as it judges one, adding what a
// conforming program does beyond what the runner needs to read it (header records before the first case, calibrated
// before the samples, a ref record before each sample). Next takes the records in order; parseLine (CheckLine) has
// checked each one's fields.
type Grammar struct {
	// Want are the cases the run asked for, and Version the protocol version of its first line.
	Want    []string
	Version int

	current string          // begun, not ended
	done    map[string]bool // ended, or reported an error
}

// Current is the case whose records come now: begun, and neither ended nor failed; "" between cases.
func (g *Grammar) Current() string { return g.current }

// Done reports whether case name ended or reported an error.
func (g *Grammar) Done(name string) bool { return g.done[name] }

// Next checks that a record of kind, of case name ("" for a record of no case), may come now, and moves past it: a
// begin makes its case the current one; an end or an error ends it.
func (g *Grammar) Next(kind, name string) error {
	if g.done == nil {
		g.done = map[string]bool{}
	}
	if name != "" && !slices.Contains(g.Want, name) {
		return fmt.Errorf("case %q was not asked for", name)
	}
	if (kind == "ref" || kind == "slowdown") && g.Version < 2 {
		return fmt.Errorf("a %s record in protocol %d: it is protocol 2's", kind, g.Version)
	}
	in := g.current != "" && g.current == name
	switch kind {
	case "bench-bridge-protocol":
		return errors.New("the protocol header again: it belongs on the first line only")
	case "loop":
		return errors.New("a loop record in run mode")
	case "begin":
		switch {
		case g.current != "":
			return fmt.Errorf("begin %s inside case %s, which has not ended", name, g.current)
		case g.done[name]:
			return fmt.Errorf("case %s begun again after its end", name)
		}
		g.current = name
	case "calibrated", "sample", "ref", "slowdown", "memory":
		if !in {
			return fmt.Errorf("%s outside its case (after begin %s, before its end)", kind, name)
		}
	case "error":
		switch {
		case g.done[name]:
			return fmt.Errorf("error for case %s after its end", name)
		case g.current != "" && !in:
			return fmt.Errorf("error for case %s inside case %s", name, g.current)
		}
		g.finish(name)
	case "end":
		if !in && !g.done[name] {
			return errors.New("end of a case that did not begin")
		}
		g.finish(name)
	}
	return nil
}

// finish ends case name: it is done, and no longer current.
func (g *Grammar) finish(name string) {
	g.done[name] = true
	if g.current == name {
		g.current = ""
	}
}
