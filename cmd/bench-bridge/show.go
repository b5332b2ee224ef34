package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/reports"
)

func newShowCmd(stdout io.Writer) *cobra.Command {
	var format, chart, html string
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
			table := reports.Build(arts, files)
			if err := writePictures(table, chart, html); err != nil {
				return err
			}
			return reports.Render(stdout, table, format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: "+strings.Join(reports.Formats, ", "))
	cmd.Flags().StringVar(&chart, "chart", "", "also draw crossings per ms per case, one bar per artifact, to FILE.svg or FILE.png")
	cmd.Flags().StringVar(&html, "html", "", "also write one self-contained page with the table and the chart to FILE")
	return cmd
}

// writePictures writes show's --chart and --html files, atomically, when asked for.
func writePictures(table *reports.Table, chart, html string) error {
	if chart != "" {
		ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(chart)), ".")
		if !slices.Contains(reports.ChartFormats, ext) {
			return fmt.Errorf("--chart %s: want a file ending in .svg or .png", chart)
		}
		data, err := reports.Chart(table, ext)
		if err != nil {
			return err
		}
		if err := artifact.WriteFileAtomic(chart, data); err != nil {
			return err
		}
	}
	if html != "" {
		var buf bytes.Buffer
		if err := reports.Render(&buf, table, "html"); err != nil {
			return err
		}
		if err := artifact.WriteFileAtomic(html, buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
