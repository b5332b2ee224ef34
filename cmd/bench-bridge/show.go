package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/reports"
)

// showOptions are show's: the artifacts and the formats to show them in.
type showOptions struct {
	IO *IOStreams

	Files  []string
	Format string
	Chart  string
	HTML   string
}

// newCmdShow is `bench-bridge show A.json [B.json ...]`.
func newCmdShow(f *Factory, runF func(*showOptions) error) *cobra.Command {
	o := &showOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "show A.json [B.json ...]",
		Short: "Show artifacts side by side: ns/op, ratio to ref_js_loop, crossings per ms, change against the first",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, files []string) error {
			o.Files = files
			if runF != nil {
				return runF(o)
			}
			return showRun(o)
		},
	}
	cmd.Flags().StringVar(&o.Format, "format", "text", "output format: "+strings.Join(reports.Formats, ", "))
	cmd.Flags().StringVar(&o.Chart, "chart", "", "also draw crossings per ms per case, one bar per artifact, to FILE.svg or FILE.png")
	cmd.Flags().StringVar(&o.HTML, "html", "", "also write one self-contained page with the table and the chart to FILE")
	return cmd
}

func showRun(o *showOptions) error {
	if !slices.Contains(reports.Formats, o.Format) {
		return fmt.Errorf("--format %q: want one of %s", o.Format, strings.Join(reports.Formats, ", "))
	}
	var arts []*artifact.Artifact
	for _, f := range o.Files {
		a, err := artifact.Read(f)
		if err != nil {
			return err
		}
		arts = append(arts, a)
	}
	if err := writePictures(reports.Build(arts, o.Files), o.Chart, o.HTML); err != nil {
		return err
	}
	return reports.Export(o.IO.Out, arts, o.Files, o.Format)
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
