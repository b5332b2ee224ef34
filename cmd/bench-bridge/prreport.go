package main

import (
	"fmt"
	"github.com/bench-bridge/bench-bridge/analysis"
	"io"
	"os"
	"strings"

	"github.com/bench-bridge/bench-bridge/gate"
)

// prReport is what a pull request's comparison says, as plain data: the renderer below takes nothing else, so that
// it can move onto another model of the comparison unchanged.
type prReport struct {
	Base, Head string   // the programs' labels: the base (first) and the pull request's
	Threshold  float64  // the least relative change that counts
	Regressed  []string // the gate's regressions: what fails the check
	Changed    []prCase // cases whose change counts, either way
	Unjudged   []prCase // cases the comparison could not judge, with why
	Same       int      // cases with no change that counts
	Notes      []string
}

// prCase is one case's change: relative, with its 95% interval.
type prCase struct {
	Case, Verdict  string
	Change, Lo, Hi float64
	Why            string
	HasInterval    bool
}

// prReportOf reads a compare's paired results into a prReport.
func prReportOf(r *gate.Report, base string, threshold float64) prReport {
	p := prReport{Base: base, Threshold: threshold, Regressed: r.Regressions()}
	for _, w := range r.Notes {
		p.Notes = append(p.Notes, w.String())
	}
	for _, res := range r.Results {
		p.Head = res.Label
		for _, w := range res.Notes {
			p.Notes = append(p.Notes, w.String())
		}
		for _, c := range res.Cases {
			pc := prCase{Case: c.Case, Verdict: string(c.Verdict), Change: c.Change, Lo: c.Low, Hi: c.High, Why: c.Note,
				HasInterval: c.Low != 0 || c.High != 0}
			switch c.Verdict {
			case analysis.Regressed, analysis.Improved, analysis.Failed:
				p.Changed = append(p.Changed, pc)
			case analysis.Same:
				p.Same++
			case analysis.Skipped:
			default:
				p.Unjudged = append(p.Unjudged, pc)
			}
		}
	}
	return p
}

// writePRReport writes the report to file, and appends it to $GITHUB_STEP_SUMMARY when that is set (a GitHub Actions
// job's summary).
func writePRReport(file string, r prReport) error {
	var b strings.Builder
	if err := renderPRReport(&b, r); err != nil {
		return err
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	summary := os.Getenv("GITHUB_STEP_SUMMARY")
	if summary == "" {
		return nil
	}
	f, err := os.OpenFile(summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("$GITHUB_STEP_SUMMARY: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("$GITHUB_STEP_SUMMARY %s: %w", summary, err)
	}
	return f.Close()
}

// renderPRReport writes r as markdown for a pull-request comment or $GITHUB_STEP_SUMMARY: the verdict first, then
// the cases that changed with their size and interval, then what could not be judged.
func renderPRReport(w io.Writer, r prReport) error {
	var b strings.Builder
	if len(r.Regressed) > 0 {
		fmt.Fprintf(&b, "### :x: bench-bridge: slower: %s\n\n", strings.Join(r.Regressed, ", "))
	} else {
		fmt.Fprintf(&b, "### :white_check_mark: bench-bridge: nothing slower by more than %g%%\n\n", 100*r.Threshold)
	}
	fmt.Fprintf(&b, "`%s` against `%s`, measured side by side in one session.\n\n", r.Head, r.Base)
	if len(r.Changed) > 0 {
		b.WriteString("| case | change | 95% interval | verdict |\n|---|---:|---|---|\n")
		for _, c := range r.Changed {
			interval := ""
			if c.HasInterval {
				interval = fmt.Sprintf("%+.1f%% to %+.1f%%", 100*c.Lo, 100*c.Hi)
			}
			fmt.Fprintf(&b, "| %s | %+.1f%% | %s | %s |\n", c.Case, 100*c.Change, interval, c.Verdict)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%d cases with no change that counts.\n", r.Same)
	if len(r.Unjudged) > 0 {
		b.WriteString("\n**Could not judge:**\n\n")
		for _, c := range r.Unjudged {
			why := c.Why
			if why == "" {
				why = c.Verdict
			}
			fmt.Fprintf(&b, "- %s: %s\n", c.Case, why)
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "> %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
