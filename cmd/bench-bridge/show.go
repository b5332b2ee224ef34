package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/reports"
)

func newShowCmd(stdout io.Writer) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "show A.json [B.json ...]",
		Short: "Show artifacts side by side: ns/op, ratio to ref_js_loop, crossings per ms, change against the first",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, files []string) error {
			if !slices.Contains(reports.Formats, format) {
				return fmt.Errorf("--format %q: want one of %s", format, strings.Join(reports.Formats, ", "))
			}
			var arts []*artifact.Artifact
			for _, f := range files {
				a, err := artifact.Read(f)
				if err != nil {
					return err
				}
				arts = append(arts, a)
			}
			return reports.Render(stdout, reports.Build(arts, files), format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: "+strings.Join(reports.Formats, ", "))
	return cmd
}

func newCasesCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "cases",
		Short: "List the case catalogue: name, what one op is, whether it crosses the boundary",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			for _, c := range cases.Catalogue {
				kind := "crossing"
				if !c.Crossing {
					kind = "no crossing"
				}
				fmt.Fprintf(stdout, "%-26s %-12s %s\n", c.Name, kind, c.Op)
			}
			return nil
		},
	}
}
