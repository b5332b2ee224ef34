package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/engines"
)

// enginesOptions are the engines command's.
type enginesOptions struct {
	IO     *IOStreams
	System engines.System // where the engines' parts are looked for: this machine
}

// newCmdEngines is `bench-bridge engines`.
func newCmdEngines(f *Factory, runF func(*enginesOptions) error) *cobra.Command {
	o := &enginesOptions{IO: f.IO}
	return &cobra.Command{
		Use:   "engines",
		Short: "List the JavaScript engines: version, kind, floor, where each comes from and runs, and what this machine lacks",
		Long: `List the JavaScript engines bench-bridge knows (` + strings.Join(engines.Names(), ", ") + `): the version this
machine has, interpreter or JIT, whether bench-bridge has a floor for it (the floor command takes its name),
where its source or library comes from, the targets it can run on, and, when this machine lacks a part, the command
that installs it.`,
		Args: cobra.NoArgs,
		RunE: runCmd(o, runF, enginesRun, func(*cobra.Command, []string) error {
			o.System = engines.Local()
			return nil
		}),
	}
}

func enginesRun(o *enginesOptions) error {
	w := tabwriter.NewWriter(o.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "engine\tversion\tkind\tfloor\there")
	statuses := make([]engines.Status, len(engines.All))
	for i, e := range engines.All {
		st := e.Check(o.System)
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
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", e.Name, version, e.Kind, floor, here)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for i, e := range engines.All {
		fmt.Fprintf(o.IO.Out, "\n%s (%s)\n  from: %s\n  runs on: %s\n", e.Name, e.Title, e.Source, e.Targets)
		if fix := statuses[i].Fix; fix != "" {
			fmt.Fprintf(o.IO.Out, "  fix: %s\n", fix)
		}
	}
	return nil
}
