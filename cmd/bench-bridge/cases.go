package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/cases"
)

// casesOptions are the cases command's.
type casesOptions struct {
	IO     *IOStreams
	Script string // the case whose JavaScript to print, or "" for the list
}

// newCmdCases is `bench-bridge cases`.
func newCmdCases(f *Factory, runF func(*casesOptions) error) *cobra.Command {
	o := &casesOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "cases",
		Short: "List the case catalogue: name, what one op is, whether it crosses the boundary",
		Long: `List the case catalogue. With --script NAME, print the JavaScript a case evaluates (after the prelude,
--script prelude, which defines expect); docs/bridge.md says what each host function must do.`,
		Args: cobra.NoArgs,
		RunE: runCmd(o, runF, casesRun, nil),
	}
	cmd.Flags().StringVar(&o.Script, "script", "", "print one case's JavaScript (or the prelude: --script prelude)")
	cmd.RegisterFlagCompletionFunc("script", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return append(cases.Names(), cases.PreludeName), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func casesRun(o *casesOptions) error {
	if o.Script == "" {
		cases.Write(o.IO.Out)
		return nil
	}
	if err := cases.WriteScript(o.IO.Out, o.Script); err != nil {
		return fmt.Errorf("--script %s: %w", o.Script, err)
	}
	return nil
}
