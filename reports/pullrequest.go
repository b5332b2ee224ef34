package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/analysis"
)

// RenderPullRequest writes a gate run's outcome as markdown for a pull-request comment or a CI job's summary: a
// headline whose icon and words are the outcome the analysis decided (analysis.Results.Outcome, the one the exit
// status follows), the programs compared, the cases whose verdict is not "same" with their change and interval, the
// others folded away, and the notes (the run's own, then each comparison's). base is the label of the program every
// other is compared with. It decides nothing: a reviewer reads the comment, not the exit status, so it must say what
// the gate says.
func RenderPullRequest(w io.Writer, rs analysis.Results, base string, runNotes []analysis.Warning) error {
	var b strings.Builder
	outcome := rs.Outcome()
	fmt.Fprintf(&b, "### %s\n\n", headline(rs, outcome))
	fmt.Fprintf(&b, "%s\n\n", programs(rs, base))
	var other, same []row
	for _, res := range rs.Results {
		for _, c := range res.Cases {
			if c.Verdict == analysis.Skipped {
				continue
			}
			r := row{program: res.Label, c: c, fails: res.Fails(c)}
			if c.Verdict == analysis.Same {
				same = append(same, r)
			} else {
				other = append(other, r)
			}
		}
	}
	several := len(rs.Results) > 1
	if len(other) > 0 {
		caseTable(&b, other, several)
	}
	if len(same) > 0 {
		fmt.Fprintf(&b, "<details><summary>%d %s with no change that counts</summary>\n\n", len(same), plural(len(same), "case", "cases"))
		caseTable(&b, same, several)
		b.WriteString("</details>\n\n")
	}
	var notes []string
	for _, n := range runNotes {
		notes = append(notes, n.String())
	}
	for _, res := range rs.Results {
		if res.NotJudged != "" {
			notes = append(notes, res.Label+": "+res.NotJudged)
		}
		for _, n := range res.Notes {
			if n.Kind != analysis.NotJudged || res.NotJudged == "" {
				notes = append(notes, n.String())
			}
		}
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "> %s\n", n)
	}
	if len(notes) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "The check %s: %s.\n", map[bool]string{true: "fails", false: "passes"}[outcome.Failed()], outcome)
	_, err := io.WriteString(w, b.String())
	return err
}

// row is one case of one comparison in the report's tables.
type row struct {
	program string
	c       analysis.CaseResult
	fails   bool
}

// headline is the report's first line: an icon and words for each outcome, never a green mark for a run that did
// not measure and find nothing slower.
func headline(rs analysis.Results, o analysis.Outcome) string {
	threshold := 0.0
	if len(rs.Results) > 0 {
		threshold = rs.Results[0].Threshold
	}
	switch o {
	case analysis.GateRegressed:
		return ":x: bench-bridge: slower: " + strings.Join(rs.Regressions(), ", ")
	case analysis.GateUndecided:
		return ":hourglass: bench-bridge: could not tell " + undecidedWithin(rs) + ": " + strings.Join(undecidedCases(rs), ", ")
	case analysis.GateJudgedNothing:
		return ":grey_question: bench-bridge: judged nothing in " + strings.Join(rs.Unjudged(), ", ")
	case analysis.GatePassedUnjudged:
		return ":warning: bench-bridge: passed by --allow-unjudged, judging nothing in " + strings.Join(rs.Unjudged(), ", ")
	}
	h := fmt.Sprintf(":white_check_mark: bench-bridge: nothing slower by more than %s", percent(threshold))
	if u := unconfirmed(rs); len(u) > 0 {
		h += " (flagged, not confirmed by the rerun: " + strings.Join(u, ", ") + ")"
	}
	return h
}

// undecidedWithin is "within BUDGET" of the comparisons that left cases undecided.
func undecidedWithin(rs analysis.Results) string {
	for _, res := range rs.Results {
		if res.Budget != "" {
			return "within " + res.Budget
		}
	}
	return "before the rounds ended"
}

// undecidedCases are the undecided cases with the change each could still be.
func undecidedCases(rs analysis.Results) []string {
	var out []string
	for _, res := range rs.Results {
		for _, c := range res.Cases {
			if c.Verdict == analysis.Undecided {
				out = append(out, fmt.Sprintf("%s (%s to %s)", c.Case, signedPercent(c.Low), signedPercent(c.High)))
			}
		}
	}
	return out
}

// unconfirmed are the cases flagged and not confirmed by a rerun, as "label: case".
func unconfirmed(rs analysis.Results) []string {
	var out []string
	for _, res := range rs.Results {
		for _, c := range res.Cases {
			if c.Verdict == analysis.Unconfirmed {
				out = append(out, res.Label+": "+c.Case)
			}
		}
	}
	return out
}

// programs names every program compared and how.
func programs(rs analysis.Results, base string) string {
	var heads []string
	paired := true
	for _, res := range rs.Results {
		heads = append(heads, "`"+res.Label+"`")
		paired = paired && res.Method == analysis.Paired
	}
	slices.Sort(heads)
	heads = slices.Compact(heads)
	how := "measured side by side in one session"
	if !paired {
		how = "each from its own artifacts"
	}
	against := "against"
	if len(heads) > 1 {
		against = "each against"
	}
	return fmt.Sprintf("%s %s `%s`, %s.", strings.Join(heads, ", "), against, base, how)
}

// caseTable writes rows as a markdown table: the case (and its program, when there are several), the change, its
// 95% interval where the test gives one, and the verdict with why.
func caseTable(b *strings.Builder, rows []row, several bool) {
	if several {
		b.WriteString("| program | case | change | 95% interval | verdict |\n|---|---|---:|---|---|\n")
	} else {
		b.WriteString("| case | change | 95% interval | verdict |\n|---|---:|---|---|\n")
	}
	for _, r := range rows {
		c := r.c
		change, interval := "", ""
		if c.Baseline > 0 || c.Low != 0 || c.High != 0 {
			change = signedPercent(c.Change)
		}
		if c.Low != 0 || c.High != 0 {
			interval = fmt.Sprintf("%s to %s", signedPercent(c.Low), signedPercent(c.High))
		}
		verdict := string(c.Verdict)
		if r.fails {
			verdict = "**" + verdict + "**"
		}
		if c.Note != "" && (c.Verdict != analysis.Same || c.UnderMinimum) {
			verdict += ": " + markdownCell(c.Note)
		}
		if several {
			fmt.Fprintf(b, "| %s ", markdownCell(r.program))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", markdownCell(c.Case), change, interval, verdict)
	}
	b.WriteString("\n")
}

// markdownCell keeps text within one table cell: no line breaks, no column separators.
func markdownCell(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ", "|", "\\|").Replace(s)
}

func percent(v float64) string { return fmt.Sprintf("%.3g%%", 100*v) }

func signedPercent(v float64) string { return fmt.Sprintf("%+.1f%%", 100*v) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
