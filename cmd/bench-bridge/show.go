package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/reports"
)

// showOptions are show's: the artifacts and the formats to show them in.
type showOptions struct {
	IO     *IOStreams
	Config configFunc
	ctx    context.Context

	Files  []string
	Format string
	Chart  string
	HTML   string
	// Wide keeps every column on a terminal too, however wide the table.
	Wide bool
	// Cases, when set, are the only cases shown (with ref_js_loop).
	Cases []string
	// Columns, when set, are the only kinds of column shown (reports.ColumnKeys), in text and markdown.
	Columns []string
	// History, when set, is a history store whose noise for each artifact's device is noted under the table.
	History string
	// ConfigFile and Thresholds give the gate's thresholds each artifact is compared with the first by.
	ConfigFile string
	Thresholds thresholdFlags
}

// newCmdShow is `bench-bridge show A.json [B.json ...]`.
func newCmdShow(f *Factory, runF func(*showOptions) error) *cobra.Command {
	o := &showOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "show A.json [B.json ...]",
		Short: "Show artifacts side by side: ns/op, ratio to ref_js_loop, crossings per ms, change against the first",
		Long: `show prints artifacts side by side, one row per case: for each artifact ns/op, its 95% prediction interval,
×ref (the case's least sample over the least ref_js_loop sample beside it) and crossings per ms, and for each
artifact after the first how it compares with the first, judged by the gate's thresholds: the config's [gate]
section, with --alpha and --min-effect over it, so that show and gate give one verdict per pair (docs/results.md
explains every column). On a terminal
the table fits its width: columns that do not fit are left out, and a line under the table names them; --wide
prints them all. Piped or redirected, text has every column, as every other format does.`,
		Args: cobra.MinimumNArgs(1),
		RunE: runCmd(o, runF, showRun, func(cmd *cobra.Command, files []string) error {
			o.ctx, o.Files = cmd.Context(), files
			o.Thresholds.changed(cmd.Flags())
			return nil
		}),
	}
	cmd.Flags().StringVar(&o.Format, "format", "text", "output format: "+strings.Join(reports.Formats, ", "))
	cmd.Flags().StringVar(&o.Chart, "chart", "", "also draw crossings per ms per case, one bar per artifact, to FILE.svg or FILE.png")
	cmd.Flags().StringVar(&o.HTML, "html", "", "also write one self-contained page with the table and the chart to FILE")
	cmd.Flags().BoolVar(&o.Wide, "wide", false, "on a terminal too, print every column however wide the table (text; the other formats always have every column)")
	cmd.Flags().StringSliceVar(&o.Cases, "cases", nil, "comma-separated cases to show (default all; ref_js_loop is always included)")
	cmd.Flags().StringVar(&o.History, "history", "", "a history store (docs/history.md): say under the table the smallest change each device's nightly can see")
	o.Thresholds.register(cmd.Flags(), "the test of each artifact against the first")
	registerConfigFlag(cmd.Flags(), &o.ConfigFile)
	cmd.Flags().StringSliceVar(&o.Columns, "columns", nil, "comma-separated columns to show in text and markdown, of "+strings.Join(reports.ColumnKeys, ", ")+" (default all)")
	return cmd
}

func showRun(o *showOptions) error {
	if !slices.Contains(reports.Formats, o.Format) {
		return fmt.Errorf("--format %q: want one of %s", o.Format, strings.Join(reports.Formats, ", "))
	}
	_, opts, err := configThresholds(o.Config, o.ConfigFile, o.Thresholds)
	if err != nil {
		return err
	}
	loaded, err := analysis.ReadFiles(o.Files, o.Cases)
	if err != nil {
		return err
	}
	var noise func(*artifact.Artifact) *analysis.Noise
	if o.History != "" {
		r, err := analysis.LoadHistory(o.ctx, o.History, false)
		if err != nil {
			return fmt.Errorf("--history: %w", err)
		}
		noise = r.NoiseOf
	}
	table := analysis.Build(loaded, opts, noise)
	if err := reports.WritePictures(table, o.Chart, o.HTML); err != nil {
		return err
	}
	if o.Format != "text" && o.Format != "markdown" {
		if len(o.Columns) > 0 {
			return fmt.Errorf("--columns: --format %s has every column; --columns is for text and markdown", o.Format)
		}
		return reports.Render(o.IO.Out, table, o.Format)
	}
	width := o.IO.TerminalWidth()
	if o.Format != "text" || o.Wide {
		width = 0
	}
	doc, err := reports.View(table, o.Columns, width)
	if err != nil {
		return fmt.Errorf("--columns: %w", err)
	}
	return doc.Render(o.IO.Out, o.Format)
}
