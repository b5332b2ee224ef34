// Package dashboard renders what a history says (analysis.History): the changes and the noise as text, markdown or
// JSON, and one static page with a chart per case. It decides nothing: what a change means, which ones fail the
// nightly and where a line's levels lie are the model's.
package dashboard

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/trend"
)

// Formats are the formats of Changes and Noise.
var Formats = []string{"text", "markdown", "json"}

// Changes writes r's changes in format.
func Changes(w io.Writer, r *analysis.History, format string) error {
	switch format {
	case "json":
		return writeJSON(w, changesJSON(r))
	case "markdown":
		fmt.Fprintf(w, "## History: %s\n\n", summary(r))
		if len(r.Changes) == 0 {
			_, err := fmt.Fprintln(w, "No change.")
			return err
		}
		fmt.Fprintln(w, "| first night | program | case | metric | change | cause | commits | devices | |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
		for _, c := range r.Changes {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.FirstNight, md(c.Program), md(c.Case), c.Metric,
				size(c), cause(c), md(commits(c)), md(devices(c)), status(c))
		}
		if cmds := bisectCommands(r); len(cmds) > 0 {
			fmt.Fprintf(w, "\nTo find the commit of each change by the code:\n\n```\n%s\n```\n", strings.Join(cmds, "\n"))
		}
		return nil
	}
	fmt.Fprintln(w, summary(r))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range r.Changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.FirstNight, c.Program, c.Case, c.Metric, size(c), cause(c),
			commits(c), devices(c), status(c))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if cmds := bisectCommands(r); len(cmds) > 0 {
		fmt.Fprintf(w, "to find the commit of each change by the code:\n  %s\n", strings.Join(cmds, "\n  "))
	}
	return nil
}

// bisectCommands are the bisect commands of r's changes, one per change that has one.
func bisectCommands(r *analysis.History) []string {
	var out []string
	for _, c := range r.Changes {
		if c.Bisect != "" {
			out = append(out, c.Bisect)
		}
	}
	return out
}

// summary is the first line: how much history was read and what it found.
func summary(r *analysis.History) string {
	s := fmt.Sprintf("%d changes (%d by the code) over %d nights of %d devices", len(r.Changes), r.ByCode, r.Nights, len(r.Devices))
	switch {
	case r.TooShort > 0 && r.NightsNeeded == 0:
		s += "; the change-point test cannot reach its alpha with its permutations: no change can be found"
	case r.TooShort > 0:
		s += fmt.Sprintf("; %d of %d lines have fewer than the %d nights a change needs: not judged there yet",
			r.TooShort, len(r.Lines), r.NightsNeeded)
	}
	return s
}

// size is the change with its interval: "+10.2% [+7.0%, +13.1%]", or exact: "+10.0% (1000 -> 1100)".
func size(c analysis.Change) string {
	if c.Exact {
		return fmt.Sprintf("%+.1f%% (%s -> %s)", 100*c.Shift, num(c.Before), num(c.After))
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", 100*c.Shift, 100*c.Low, 100*c.High)
}

// num is a value with four significant digits, whole above 1000: 49.12, 1800.
func num(v float64) string {
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// cause says in words what caused c.
func cause(c analysis.Change) string {
	switch c.Cause {
	case trend.CauseCode:
		return "the code"
	case trend.CauseDevice:
		return "one device"
	case trend.CauseSome:
		return fmt.Sprintf("%d of %d devices", len(c.Devices), len(c.Exposed))
	}
	return "undecided: one device ran it"
}

func commits(c analysis.Change) string {
	return analysis.ShortCommit(c.From) + ".." + analysis.ShortCommit(c.To)
}

func devices(c analysis.Change) string {
	return fmt.Sprintf("%s (of %d)", strings.Join(c.Devices, ", "), len(c.Exposed))
}

func status(c analysis.Change) string {
	var s []string
	if c.New {
		s = append(s, "new")
	}
	if c.Open {
		s = append(s, "open")
	}
	if c.Ack != nil {
		s = append(s, "known: "+c.Ack.Note)
	}
	return strings.Join(s, ", ")
}

// md escapes a cell of a markdown table.
func md(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Noise writes r's noise per device and case in format.
func Noise(w io.Writer, r *analysis.History, format string) error {
	switch format {
	case "json":
		return writeJSON(w, noiseJSON(r))
	case "markdown":
		fmt.Fprintln(w, "| device | program | case | nights | level | night-to-night | smallest visible change |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, n := range r.Noise {
			fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %s | %s |\n", md(n.Device), md(n.Program), md(n.Case), n.Nights, num(n.Level), pct(n.Spread, "±"), pct(n.Visible, ""))
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "device\tprogram\tcase\tnights\tlevel (x ref)\tnight-to-night\tsmallest visible change")
	for _, n := range r.Noise {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", n.Device, n.Program, n.Case, n.Nights, num(n.Level), pct(n.Spread, "±"), pct(n.Visible, ""))
	}
	return tw.Flush()
}

// pct is a share as a percentage, or what is missing to have one.
func pct(v float64, sign string) string {
	if math.IsNaN(v) {
		return "too few nights"
	}
	return fmt.Sprintf("%s%.1f%%", sign, 100*v)
}

type changeRow struct {
	Program    string   `json:"program"`
	Case       string   `json:"case"`
	Metric     string   `json:"metric"`
	FirstNight string   `json:"first_night"`
	From       string   `json:"from_commit"`
	To         string   `json:"to_commit"`
	Shift      float64  `json:"shift"`
	Low        float64  `json:"shift_low"`
	High       float64  `json:"shift_high"`
	Before     float64  `json:"before"`
	After      float64  `json:"after"`
	Cause      string   `json:"cause"`
	Devices    []string `json:"devices"`
	Exposed    []string `json:"devices_that_ran_it"`
	Regression bool     `json:"regression"`
	Open       bool     `json:"open"`
	New        bool     `json:"new"`
	Bisect     string   `json:"bisect,omitempty"`
	Known      *string  `json:"known,omitempty"` // the note of an acknowledged change
}

func changesJSON(r *analysis.History) any {
	out := []changeRow{}
	for _, c := range r.Changes {
		out = append(out, changeRow{c.Program, c.Case, c.Metric, c.FirstNight, c.From, c.To, c.Shift, c.Low, c.High, c.Before,
			c.After, c.Cause, c.Devices, c.Exposed, c.Regression, c.Open, c.New, c.Bisect, nil})
		if c.Ack != nil {
			out[len(out)-1].Known = &c.Ack.Note
		}
	}
	return map[string]any{"nights": r.Nights, "devices": len(r.Devices), "changes": out,
		"nights_needed": r.NightsNeeded, "lines_too_short": r.TooShort}
}

type noiseRow struct {
	Device  string   `json:"device"`
	Program string   `json:"program"`
	Case    string   `json:"case"`
	Nights  int      `json:"nights"`
	Level   float64  `json:"level"`
	Spread  *float64 `json:"night_to_night"`
	Visible *float64 `json:"smallest_visible_change"`
}

func noiseJSON(r *analysis.History) any {
	out := []noiseRow{}
	for _, n := range r.Noise {
		out = append(out, noiseRow{n.Device, n.Program, n.Case, n.Nights, n.Level, finite(n.Spread), finite(n.Visible)})
	}
	return out
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func writeJSON(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}
