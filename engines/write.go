package engines

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Write prints every engine as `bench-bridge engines` shows them: a row each (its version on sys, its kind, whether
// bench-bridge has its floor, whether sys has what it needs), then each one's source, targets and the fix for what sys
// lacks.
func Write(w io.Writer, sys System) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "engine\tversion\tkind\tfloor\there")
	statuses := make([]Status, len(All))
	for i, e := range All {
		st := e.Check(sys)
		statuses[i] = st
		floor, here, version := "yes", "yes", st.Version
		if e.Floor == nil {
			floor = "not yet"
		}
		if !st.Have {
			here = "no: " + st.Detail
		}
		if version == "" {
			version = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, version, e.Kind, floor, here)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, e := range All {
		fmt.Fprintf(w, "\n%s (%s)\n  from: %s\n  runs on: %s\n", e.Name, e.Title, e.Source, e.Targets)
		if fix := statuses[i].Fix; fix != "" {
			fmt.Fprintf(w, "  fix: %s\n", fix)
		}
	}
	return nil
}

// WithFloor is the engine name as `floor --engine` takes it: one bench-bridge knows and has a floor for.
func WithFloor(name string) (Engine, error) {
	e, err := Lookup(name)
	if err != nil {
		return e, err
	}
	if e.Floor == nil {
		return e, fmt.Errorf("bench-bridge has no floor for %s yet (bench-bridge engines lists the engines with one)", e.Title)
	}
	return e, nil
}
