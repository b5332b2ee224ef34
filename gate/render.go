// Package gate renders the regression gate's report: each baseline against its current artifact, as the analysis
// judged them (analysis.Judge, analysis.JudgePaired), and the gate's outcome as the analysis decides it
// (analysis.Results.Outcome: what regressed, what judged nothing, whether it fails), in text for a terminal,
// markdown for a CI job summary and json for scripts. It decides nothing.
package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/reports"
)

// Report is every comparison of one gate run.
type Report struct {
	Results []*analysis.Result `json:"results"`
	Notes   []analysis.Warning `json:"notes"`
	// AllowUnjudged lets a comparison that judged nothing pass (--allow-unjudged); by default it fails the gate.
	AllowUnjudged bool `json:"allow_unjudged,omitempty"`
}

// Gate is the report's comparisons as the analysis decides the gate over them (analysis.Results): what regressed,
// what judged nothing, and the outcome.
func (r *Report) Gate() analysis.Results {
	return analysis.Results{Results: r.Results, AllowUnjudged: r.AllowUnjudged}
}

// Regressions lists what fails the gate, as "label: case" (analysis.Results.Regressions).
func (r *Report) Regressions() []string { return r.Gate().Regressions() }

// Unjudged lists the labels of the comparisons that judged nothing (analysis.Results.Unjudged).
func (r *Report) Unjudged() []string { return r.Gate().Unjudged() }

// Formats lists the formats Render accepts.
var Formats = []string{"text", "markdown", "json"}

// Render writes the report in format: text for a terminal, markdown for a CI job summary, json for scripts.
func Render(w io.Writer, r *Report, format string) error {
	switch format {
	case "text", "markdown":
		return r.Document().Render(w, format)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.JSON())
	}
	return fmt.Errorf("unknown format %q (have %s)", format, strings.Join(Formats, ", "))
}

// JSON is the report as scripts read it: every result and the regressions by name.
func (r *Report) JSON() any {
	out := struct {
		*Report
		Regressions []string `json:"regressions"`
		Unjudged    []string `json:"not_judged"`
	}{r, r.Regressions(), r.Unjudged()}
	if out.Regressions == nil {
		out.Regressions = []string{}
	}
	if out.Unjudged == nil {
		out.Unjudged = []string{}
	}
	return out
}

// summary is the closing line: what regressed, what could not be judged, or that nothing regressed.
func (r *Report) summary() string {
	reg, unjudged := r.Regressions(), r.Unjudged()
	nothing := ""
	if len(unjudged) > 0 {
		nothing = fmt.Sprintf("judged nothing in %s (the notes say what would judge it)", strings.Join(unjudged, ", "))
	}
	switch r.Gate().Outcome() {
	case analysis.GateRegressed:
		if nothing != "" {
			return fmt.Sprintf("gate: %d regressed: %s; and %s", len(reg), strings.Join(reg, ", "), nothing)
		}
		return fmt.Sprintf("gate: %d regressed: %s", len(reg), strings.Join(reg, ", "))
	case analysis.GateUndecided:
		return "gate: not passed: could not tell whether " + strings.Join(r.Gate().Undecided(), ", ") +
			" got slower before the rounds ended (the notes say what would tell)"
	case analysis.GatePassedUnjudged:
		return "gate: ok by --allow-unjudged, though it " + nothing
	case analysis.GateJudgedNothing:
		return "gate: not passed: " + nothing + "; --allow-unjudged lets it pass"
	}
	if len(r.Results) == 1 {
		return "gate: ok, nothing regressed"
	}
	return fmt.Sprintf("gate: ok, nothing regressed in %d comparisons", len(r.Results))
}

// how says what was compared and with which thresholds.
func how(res *analysis.Result) string {
	if res.Metric == analysis.Time && res.Test != "" {
		return fmt.Sprintf("ratio to %s %s, sign test alpha %g, min effect %s (flagged above half of it)", cases.RefCase,
			res.Test, res.Alpha, percent(res.Threshold))
	}
	if res.Method == analysis.Unjudgeable {
		return fmt.Sprintf("ratio to %s, not judged by time: different origins", cases.RefCase)
	}
	if res.Metric == analysis.Time {
		return fmt.Sprintf("median over %s, U test alpha %g, min effect %s", cases.RefCase, res.Alpha, percent(res.Threshold))
	}
	if res.Metric == analysis.Allocations {
		return fmt.Sprintf("allocations per op, engine and host, threshold +%g per op", res.Threshold)
	}
	return fmt.Sprintf("instructions per op over %s's, threshold %s", cases.RefCase, percent(res.Threshold))
}

func header(res *analysis.Result) []string {
	mark := func(emulated string) string {
		if emulated != "" {
			return " (emulated)"
		}
		return ""
	}
	unit := "×ref"
	if res.Metric == analysis.Allocations {
		unit = "allocs/op"
	}
	return []string{"case", "baseline " + unit + mark(res.BaselineEmulated), "current " + unit + mark(res.CurrentEmulated),
		"change", "p", "min", "verdict"}
}

// sides names the two artifacts, each with why it is emulated when it is: "b.json -> c.json [emulated: ...]".
func sides(res *analysis.Result) string {
	side := func(file, emulated string) string {
		if emulated != "" {
			return file + " [" + emulated + "]"
		}
		return file
	}
	return side(res.Baseline, res.BaselineEmulated) + " -> " + side(res.Current, res.CurrentEmulated)
}

// rows renders the case rows as text and markdown show them, one per case in res.Cases.
func rows(res *analysis.Result) [][]string {
	var rows [][]string
	for _, c := range res.Cases {
		row := []string{c.Case, "", "", "", "", percent(c.Threshold), verdictText(res, c)}
		switch {
		case res.Metric == analysis.Allocations:
			row[5] = fmt.Sprintf("+%g", c.Threshold)
			if c.Verdict == analysis.Same || c.Verdict == analysis.Improved || c.Verdict == analysis.Regressed {
				row[1], row[2], row[3] = ratio(c.Baseline), ratio(c.Current), fmt.Sprintf("%+.4g", c.Change)
			}
		case c.Baseline > 0:
			row[1], row[2], row[3] = ratio(c.Baseline), ratio(c.Current), signedPercent(c.Change)
		}
		if c.P != nil && c.Verdict != analysis.Unjudged && c.Verdict != analysis.Undecided { // a test that decides nothing shows no p
			row[4] = fmt.Sprintf("%.3f", *c.P)
		}
		rows = append(rows, row)
	}
	return rows
}

func verdictText(res *analysis.Result, c analysis.CaseResult) string {
	v := string(c.Verdict)
	if res.Fails(c) {
		v = strings.ToUpper(v)
	}
	if c.Rerun != nil {
		v += fmt.Sprintf(" (rerun %s", signedPercent(c.Rerun.Change))
		if c.Rerun.P != nil {
			v += fmt.Sprintf(", p=%.3f", *c.Rerun.P)
		}
		v += ")"
	}
	if c.Note != "" && (c.Verdict != analysis.Same || c.UnderMinimum) {
		v += ": " + c.Note
	}
	return v
}

// guardLines says how each guard fared.
func guardLines(res *analysis.Result) []string {
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

func footer(res *analysis.Result) []string {
	out := guardLines(res)
	if res.Confirmation != "" {
		out = append(out, "flagged cases rerun: "+res.Confirmation)
	}
	return append(out, lines(res.Notes)...)
}

// Document is the report as text and markdown show it: a section per comparison, the notes, and the verdict.
func (r *Report) Document() *reports.Document {
	d := &reports.Document{Summary: r.summary(), Failed: r.Gate().Outcome().Failed(), Notes: lines(r.Notes)}
	for _, res := range r.Results {
		sec := reports.Section{Title: res.Label, Intro: sides(res) + " (" + how(res) + ")", Footer: footer(res)}
		for i, h := range header(res) {
			sec.Columns = append(sec.Columns, reports.Heading{Name: h, Right: i > 0 && i < 6})
		}
		for i, row := range rows(res) {
			cells := reports.Entries(row...)
			cells[6].Strong = res.Fails(res.Cases[i])
			sec.Rows = append(sec.Rows, cells)
		}
		d.Sections = append(d.Sections, sec)
	}
	return d
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

// lines are notes as the views print them, one a line (analysis.Warning.String).
func lines(notes []analysis.Warning) []string {
	var out []string
	for _, n := range notes {
		out = append(out, n.String())
	}
	return out
}
