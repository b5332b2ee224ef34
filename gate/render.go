package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/textsafe"
)

// Report is every comparison of one gate run.
type Report struct {
	Results []*Result `json:"results"`
	Notes   []string  `json:"notes"`
}

// Regressions lists what fails the gate, as "label: case".
func (r *Report) Regressions() []string {
	var out []string
	for _, res := range r.Results {
		for _, c := range res.Regressions() {
			out = append(out, res.Label+": "+c)
		}
	}
	return out
}

// Formats lists the formats Render accepts.
var Formats = []string{"text", "markdown", "json"}

// Render writes the report in format: text for a terminal, markdown for a CI job summary, json for scripts.
func Render(w io.Writer, r *Report, format string) error {
	switch format {
	case "text":
		return renderText(w, r)
	case "markdown":
		return renderMarkdown(w, r)
	case "json":
		out := struct {
			*Report
			Regressions []string `json:"regressions"`
		}{r, r.Regressions()}
		if out.Regressions == nil {
			out.Regressions = []string{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return fmt.Errorf("unknown format %q (have %s)", format, strings.Join(Formats, ", "))
}

// summary is the closing line: what regressed, or that nothing did.
func (r *Report) summary() string {
	reg := r.Regressions()
	if len(reg) == 0 {
		if len(r.Results) == 1 {
			return "gate: ok, nothing regressed"
		}
		return fmt.Sprintf("gate: ok, nothing regressed in %d comparisons", len(r.Results))
	}
	return fmt.Sprintf("gate: %d regressed: %s", len(reg), strings.Join(reg, ", "))
}

// how says what was compared and with which thresholds.
func (res *Result) how() string {
	if res.Metric == Time && res.Test != "" {
		return fmt.Sprintf("ratio to %s %s, sign test alpha %g, min effect %s (flagged above half of it)", cases.RefCase,
			res.Test, res.Alpha, percent(res.Threshold))
	}
	if res.Metric == Time {
		return fmt.Sprintf("median over %s, U test alpha %g, min effect %s", cases.RefCase, res.Alpha, percent(res.Threshold))
	}
	if res.Metric == Allocations {
		return fmt.Sprintf("allocations per op, engine and host, threshold +%g per op", res.Threshold)
	}
	return fmt.Sprintf("instructions per op over %s's, threshold %s", cases.RefCase, percent(res.Threshold))
}

func (res *Result) header() []string {
	mark := func(emulated string) string {
		if emulated != "" {
			return " (emulated)"
		}
		return ""
	}
	unit := "×ref"
	if res.Metric == Allocations {
		unit = "allocs/op"
	}
	return []string{"case", "baseline " + unit + mark(res.BaselineEmulated), "current " + unit + mark(res.CurrentEmulated),
		"change", "p", "min", "verdict"}
}

// sides names the two artifacts, each with why it is emulated when it is: "b.json -> c.json [emulated: ...]".
func (res *Result) sides(quote func(string) string, arrow string) string {
	side := func(file, emulated string) string {
		if emulated != "" {
			return quote(file) + " [" + emulated + "]"
		}
		return quote(file)
	}
	return side(res.Baseline, res.BaselineEmulated) + " " + arrow + " " + side(res.Current, res.CurrentEmulated)
}

// rows renders the case rows as text and markdown show them.
func (res *Result) rows() [][]string {
	var rows [][]string
	for _, c := range res.Cases {
		row := []string{c.Case, "", "", "", "", percent(c.Threshold), verdictText(c)}
		switch {
		case res.Metric == Allocations:
			row[5] = fmt.Sprintf("+%g", c.Threshold)
			if c.Verdict == Same || c.Verdict == Improved || c.Verdict == Regressed {
				row[1], row[2], row[3] = ratio(c.Baseline), ratio(c.Current), fmt.Sprintf("%+.4g", c.Change)
			}
		case c.Baseline > 0:
			row[1], row[2], row[3] = ratio(c.Baseline), ratio(c.Current), signedPercent(c.Change)
		}
		if c.P != nil {
			row[4] = fmt.Sprintf("%.3f", *c.P)
		}
		rows = append(rows, row)
	}
	return rows
}

func verdictText(c CaseResult) string {
	v := string(c.Verdict)
	if c.Verdict == Regressed || c.Verdict == Failed {
		v = strings.ToUpper(v)
	}
	if c.Rerun != nil {
		v += fmt.Sprintf(" (rerun %s", signedPercent(c.Rerun.Change))
		if c.Rerun.P != nil {
			v += fmt.Sprintf(", p=%.3f", *c.Rerun.P)
		}
		v += ")"
	}
	if c.Note != "" && c.Verdict != Same {
		v += ": " + c.Note
	}
	return v
}

// guardLines says how each guard fared.
func (res *Result) guardLines() []string {
	var out []string
	for _, g := range res.Guards {
		var state string
		switch {
		case g.Missing:
			state = "not measured"
		case g.OK && g.Rerun != nil:
			state = fmt.Sprintf("%.4g, rerun %.4g: unconfirmed", g.Ratio, *g.Rerun)
		case g.OK:
			state = fmt.Sprintf("%.4g: ok", g.Ratio)
		default:
			state = fmt.Sprintf("%.4g: BREACHED", g.Ratio)
		}
		out = append(out, fmt.Sprintf("guard %s over %s at most %.4g: %s", g.Case, cases.RefCase, g.Max, state))
	}
	return out
}

func (res *Result) footer() []string {
	out := res.guardLines()
	if res.Confirmation != "" {
		out = append(out, "flagged cases rerun: "+res.Confirmation)
	}
	return append(out, res.Notes...)
}

func renderText(w io.Writer, r *Report) error {
	for _, res := range r.Results {
		// Labels, case names and failure reasons come from artifacts: no control character of theirs reaches a terminal.
		fmt.Fprintln(w, textsafe.Line(fmt.Sprintf("%s: %s (%s)", res.Label, res.sides(func(s string) string { return s }, "->"), res.how())))
		var buf bytes.Buffer
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		for _, row := range append([][]string{res.header()}, res.rows()...) {
			fmt.Fprintln(tw, strings.Join(cleaned(row, textsafe.Line), "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
			fmt.Fprintln(w, "  "+strings.TrimRight(line, " "))
		}
		for _, line := range res.footer() {
			fmt.Fprintln(w, "  "+textsafe.Line(line))
		}
		fmt.Fprintln(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, textsafe.Line(n))
	}
	fmt.Fprintln(w, r.summary())
	return nil
}

func renderMarkdown(w io.Writer, r *Report) error {
	mark := "✅"
	if len(r.Regressions()) > 0 {
		mark = "❌"
	}
	fmt.Fprintf(w, "## %s %s\n\n", mark, r.summary())
	for _, res := range r.Results {
		fmt.Fprintf(w, "### %s\n\n%s\n\n", textsafe.Line(res.Label),
			textsafe.Line(res.sides(func(s string) string { return "`" + s + "`" }, "→")+": "+res.how()))
		h := cleaned(res.header(), textsafe.MarkdownCell)
		fmt.Fprintln(w, "| "+strings.Join(h, " | ")+" |")
		fmt.Fprintln(w, "|---|"+strings.Repeat("---:|", len(h)-2)+"---|")
		for _, row := range res.rows() {
			row = cleaned(row, textsafe.MarkdownCell)
			row[0] = "`" + row[0] + "`"
			if strings.HasPrefix(row[6], "REGRESSED") || strings.HasPrefix(row[6], "FAILED") {
				row[6] = "**" + row[6] + "**"
			}
			fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
		}
		if f := res.footer(); len(f) > 0 {
			fmt.Fprintln(w)
			for _, line := range f {
				fmt.Fprintln(w, "- "+textsafe.Line(line))
			}
		}
		fmt.Fprintln(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "- "+textsafe.Line(n))
	}
	return nil
}

// cleaned returns row's cells through clean.
func cleaned(row []string, clean func(string) string) []string {
	for i, c := range row {
		row[i] = clean(c)
	}
	return row
}

// ratio prints a ratio to the reference with four significant digits, without an exponent: 42.24, 22290.
func ratio(v float64) string {
	if v >= 1e4 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

func percent(v float64) string { return fmt.Sprintf("%.3g%%", 100*v) }

func signedPercent(v float64) string { return fmt.Sprintf("%+.1f%%", 100*v) }
