package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/dashboard"
	"github.com/bench-bridge/bench-bridge/history"
	"github.com/bench-bridge/bench-bridge/trend"
)

// storeFlag is --store, of every history command.
type storeFlag struct{ location string }

func (s *storeFlag) register(fl *pflag.FlagSet) {
	fl.StringVar(&s.location, "store", "", "the history: a SQLite file, or a postgres:// URL (default: $BENCH_BRIDGE_HISTORY, else "+history.DefaultLocation+")")
}

// open opens the store the flag or the environment names (history.Locate).
func (s *storeFlag) open(ctx context.Context) (*history.Store, error) {
	return history.Open(ctx, history.Locate(s.location), history.Options{})
}

// historyBase is what the options of every history command hold: the streams, the run's context and --store.
type historyBase struct {
	IO    *IOStreams
	ctx   context.Context
	Store storeFlag
}

// read takes the run's context from the command line, for a history command of no arguments.
func (b *historyBase) read(cmd *cobra.Command, _ []string) error {
	b.ctx = cmd.Context()
	return nil
}

// newCmdHistory is `bench-bridge history`, the commands of the store of every night.
func newCmdHistory(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Keep every night's artifacts and find where a case's numbers changed, on which devices, at which commit",
		Long: `history keeps every night of the nightly in a store (one SQLite file, or a PostgreSQL database that a lab's
runners share), one series per device, program and build, and finds the nights where a series shifted
(docs/history.md).`,
		Example: `  bench-bridge history add --commit "$GITHUB_SHA" out/nightly/linux.json
  bench-bridge history changes --format markdown
  bench-bridge history noise
  bench-bridge history html out/dashboard
  bench-bridge history ack --case callback --commit c30 --note "the new codec costs this, on purpose"`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCmdHistoryAdd(f, nil), newCmdHistoryChanges(f, nil), newCmdHistoryNoise(f, nil), newCmdHistoryHTML(f, nil), newCmdHistoryAck(f, nil))
	return cmd
}

// historyAckOptions are history ack's: which change, and why it is known.
type historyAckOptions struct {
	historyBase
	Case    string
	Commit  string
	Program string
	Series  string // --metric: which series of the case changed (time, instructions, allocations)
	Note    string
}

// newCmdHistoryAck is `bench-bridge history ack --case CASE --commit COMMIT --note NOTE`.
func newCmdHistoryAck(f *Factory, runF func(*historyAckOptions) error) *cobra.Command {
	o := &historyAckOptions{historyBase: historyBase{IO: f.IO}}
	cmd := &cobra.Command{
		Use:   "ack --case CASE --commit COMMIT --note NOTE",
		Short: "Acknowledge a change point with a note: it no longer fails --fail-new, and is shown as known",
		Long: `ack marks the change of CASE whose commit range ends at COMMIT (the second commit of "c29..c30", or its first
characters) as known, with a note saying why. history changes and the page still show it, as "known: NOTE", and
changes --fail-new no longer fails on it. A second ack of the same change replaces the note. When several changes of
the case end at that commit (another program, another metric), --program and --metric pick one.`,
		Args: cobra.NoArgs,
		RunE: runCmd(o, runF, historyAckRun, o.read),
	}
	fl := cmd.Flags()
	o.Store.register(fl)
	fl.StringVar(&o.Case, "case", "", "the case that changed")
	fl.StringVar(&o.Commit, "commit", "", "the commit the change came at, as history changes prints it (c29..c30: c30)")
	fl.StringVar(&o.Program, "program", "", `the program, as history changes prints it ("json bridge", "floor"), when several changed`)
	fl.StringVar(&o.Series, "metric", "", "the metric (time, instructions or allocations), when several changed")
	fl.StringVar(&o.Note, "note", "", "why the change is known (required)")
	return cmd
}

func historyAckRun(o *historyAckOptions) error {
	metric := o.Series
	if metric == "time" {
		metric = trend.Ratio
	}
	switch {
	case o.Case == "" || o.Commit == "":
		return fmt.Errorf("history ack: --case and --commit name the change (history changes prints them)")
	case strings.TrimSpace(o.Note) == "":
		return fmt.Errorf("history ack: --note is required: say why the change is known")
	case metric != "" && !slices.Contains(trend.Metrics, metric):
		return fmt.Errorf("--metric %q: want time, instructions or allocations", o.Series)
	}
	s, err := o.Store.open(o.ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	h, err := s.Load(o.ctx)
	if err != nil {
		return err
	}
	c, err := analysis.BuildHistory(h, trend.DefaultOptions).TheChange(o.Case, o.Commit, o.Program, metric, s.Where())
	if err != nil {
		return fmt.Errorf("history ack: %w", err)
	}
	if err := s.Acknowledge(o.ctx, history.Ack{Program: c.Program, Case: c.Case, Metric: c.Metric, To: c.To, Note: o.Note}); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "acknowledged: %s %s %s at %s..%s (%+.1f%%): %s\n", c.Program, c.Case, c.Metric, analysis.ShortCommit(c.From), analysis.ShortCommit(c.To), 100*c.Shift, o.Note)
	return nil
}

// historyAddOptions are history add's: the artifacts, and what they may not say themselves.
type historyAddOptions struct {
	historyBase
	Files    []string
	Commit   string
	Night    string
	Device   string
	Replace  bool
	Backfill bool
}

// newCmdHistoryAdd is `bench-bridge history add ARTIFACT...`.
func newCmdHistoryAdd(f *Factory, runF func(*historyAddOptions) error) *cobra.Command {
	o := &historyAddOptions{historyBase: historyBase{IO: f.IO}}
	cmd := &cobra.Command{
		Use:   "add ARTIFACT...",
		Short: "Record artifacts in the history, once each: all of them or none",
		Args:  cobra.MinimumNArgs(1),
		RunE: runCmd(o, runF, historyAddRun, func(cmd *cobra.Command, files []string) error {
			o.ctx, o.Files = cmd.Context(), files
			return nil
		}),
	}
	fl := cmd.Flags()
	o.Store.register(fl)
	fl.StringVar(&o.Commit, "commit", "", "the commit the artifacts measured (default: the commit an artifact of a bridge at a revision records, else $GITHUB_SHA, else the revision bench-bridge was built from)")
	fl.StringVar(&o.Night, "night", "", "the night, YYYY-MM-DD (default: the day, UTC, each run started)")
	fl.StringVar(&o.Device, "device", "", "name the device instead of keying it by its metadata (identical machines of a lab)")
	fl.BoolVar(&o.Replace, "replace", false, "keep these artifacts instead of others the history has for the same nights")
	fl.BoolVar(&o.Backfill, "backfill", false, "accept nights older than a series' newest (importing old artifacts)")
	return cmd
}

func historyAddRun(o *historyAddOptions) error {
	entries, err := history.ReadEntries(o.Files, history.EntryOptions{Commit: o.Commit, Environment: os.Getenv("GITHUB_SHA"), Night: o.Night, Device: o.Device})
	if err != nil {
		return err
	}
	s, err := o.Store.open(o.ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Now()
	out, err := s.Add(o.ctx, entries, history.AddOptions{Replace: o.Replace, Backfill: o.Backfill})
	if err != nil {
		return err
	}
	for _, oc := range out {
		e := oc.Entry
		switch {
		case !oc.Added:
			fmt.Fprintf(o.IO.Out, "already kept: %s (%s)\n", e.File, e.Identity)
		case oc.Replaced != "":
			fmt.Fprintf(o.IO.Out, "replaced night %s of %s at %s with %s (was %s)\n", e.Night, e.Series, analysis.ShortCommit(e.Revision), e.File, oc.Replaced)
		default:
			fmt.Fprintf(o.IO.Out, "added night %s of %s at %s: %s\n", e.Night, e.Series, analysis.ShortCommit(e.Revision), e.File)
		}
		if !e.Artifact.Complete {
			fmt.Fprintf(o.IO.ErrOut, "bench-bridge: warning: %s is incomplete: the history has the cases it measured whole\n", e.File)
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "history %s: %d of %d artifacts added in %s\n", s.Where(), history.Added(out), len(out), time.Since(start).Round(time.Millisecond))
	return nil
}

func checkFormat(format string) error {
	if !slices.Contains(dashboard.Formats, format) {
		return fmt.Errorf("--format %q: want one of %s", format, strings.Join(dashboard.Formats, ", "))
	}
	return nil
}

// historyChangesOptions are history changes's.
type historyChangesOptions struct {
	historyBase
	Format  string
	FailNew bool
}

// newCmdHistoryChanges is `bench-bridge history changes`.
func newCmdHistoryChanges(f *Factory, runF func(*historyChangesOptions) error) *cobra.Command {
	o := &historyChangesOptions{historyBase: historyBase{IO: f.IO}}
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "Print the nights where a case's numbers changed: commits, size, devices, and whether the code or a device caused it",
		Long: `changes finds where each device's series of each case shifted: by time (the ratio to ref_js_loop), with
E-divisive means and a permutation test against the series' own night-to-night noise; by instruction and
allocation counts, which repeat exactly, wherever they move. A change that every device that ran its commits
shows is the code's; one that only one of them shows is that device's (docs/history.md).

Exit status: 0, or with --fail-new 3 when a change that the newest nights made visible is the code's and a
regression; 1 on an error.`,
		Args: cobra.NoArgs,
		RunE: runCmd(o, runF, historyChangesRun, o.read),
	}
	o.Store.register(cmd.Flags())
	cmd.Flags().StringVar(&o.Format, "format", "text", "output format: "+strings.Join(dashboard.Formats, ", "))
	cmd.Flags().BoolVar(&o.FailNew, "fail-new", false, "exit 3 when the newest nights show a new regression that the code caused")
	return cmd
}

func historyChangesRun(o *historyChangesOptions) error {
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	r, err := analysis.LoadHistory(o.ctx, o.Store.location, o.FailNew)
	if err != nil {
		return err
	}
	if err := dashboard.Changes(o.IO.Out, r, o.Format); err != nil {
		return err
	}
	if caught := r.NewRegressions(); len(caught) > 0 {
		return regressionError{"new change by the code: " + strings.Join(caught, ", ")}
	}
	return nil
}

// historyNoiseOptions are history noise's.
type historyNoiseOptions struct {
	historyBase
	Format string
}

// newCmdHistoryNoise is `bench-bridge history noise`.
func newCmdHistoryNoise(f *Factory, runF func(*historyNoiseOptions) error) *cobra.Command {
	o := &historyNoiseOptions{historyBase: historyBase{IO: f.IO}}
	cmd := &cobra.Command{
		Use:   "noise",
		Short: "Print each device's night-to-night spread per case when nothing changed, and the smallest change the nightly sees there",
		Args:  cobra.NoArgs,
		RunE:  runCmd(o, runF, historyNoiseRun, o.read),
	}
	o.Store.register(cmd.Flags())
	cmd.Flags().StringVar(&o.Format, "format", "text", "output format: "+strings.Join(dashboard.Formats, ", "))
	return cmd
}

func historyNoiseRun(o *historyNoiseOptions) error {
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	r, err := analysis.LoadHistory(o.ctx, o.Store.location, false)
	if err != nil {
		return err
	}
	return dashboard.Noise(o.IO.Out, r, o.Format)
}

// historyHTMLOptions are history html's.
type historyHTMLOptions struct {
	historyBase
	Dir string
}

// newCmdHistoryHTML is `bench-bridge history html DIR`.
func newCmdHistoryHTML(f *Factory, runF func(*historyHTMLOptions) error) *cobra.Command {
	o := &historyHTMLOptions{historyBase: historyBase{IO: f.IO}}
	cmd := &cobra.Command{
		Use:   "html DIR",
		Short: "Write DIR/index.html: one static page with a chart per case over the nights, a line per device, and the open changes",
		Args:  cobra.ExactArgs(1),
		RunE: runCmd(o, runF, historyHTMLRun, func(cmd *cobra.Command, args []string) error {
			o.ctx, o.Dir = cmd.Context(), args[0]
			return nil
		}),
	}
	o.Store.register(cmd.Flags())
	return cmd
}

func historyHTMLRun(o *historyHTMLOptions) error {
	r, err := analysis.LoadHistory(o.ctx, o.Store.location, false)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := dashboard.HTML(&buf, r); err != nil {
		return err
	}
	page := filepath.Join(o.Dir, "index.html")
	if err := artifact.WriteFileAtomic(page, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "wrote %s: %d nights of %d devices, %d changes\n", page, r.Nights, len(r.Devices), len(r.Changes))
	return nil
}
