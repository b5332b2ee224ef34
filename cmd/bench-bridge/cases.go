package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/cases"
)

// preludeName is what --script takes for the prelude every case's script follows.
const preludeName = "prelude"

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
		return append(cases.Names(), preludeName), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func casesRun(o *casesOptions) error {
	if o.Script != "" {
		return printScript(o.IO.Out, o.Script)
	}
	width := 0
	for _, c := range cases.Catalogue {
		width = max(width, len(c.Name))
	}
	for _, c := range cases.Catalogue {
		kind := "crossing"
		if !c.Crossing {
			kind = "no crossing"
		}
		fmt.Fprintf(o.IO.Out, "%-*s %-12s %s\n", width, c.Name, kind, c.Op)
	}
	return nil
}

func printScript(w io.Writer, name string) error {
	var js string
	if name == preludeName {
		s, err := cases.LoadScripts()
		if err != nil {
			return err
		}
		js = s.Prelude
	} else {
		var err error
		if js, err = cases.Script(name); err != nil {
			return fmt.Errorf("--script %s: %w", name, err)
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(js, "\n")+"\n")
	return err
}
