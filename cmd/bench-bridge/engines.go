package main

import (
	"strings"

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
	return engines.Write(o.IO.Out, o.System)
}
