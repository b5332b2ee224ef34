package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/fakeart"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestEveryViewSaysOneVerdict is the property that a green mark means measured and not slower, wherever it is read:
// for generated pairs and sessions of artifacts (1 to 12 processes a side, changes from -50% to 50x, one origin or
// two, cases missing on one side, compare's sequential rule ended anywhere), every view (show in text, markdown,
// json, csv and html; gate in text, markdown and json; compare's table and comparisons; the pull-request report)
// gives each case the verdict the analysis gave it, and gate's and compare's exit statuses, gate's closing line and
// the report's headline say the outcome the analysis decided.
func TestEveryViewSaysOneVerdict(t *testing.T) {
	seen := map[analysis.Outcome]int{}
	for seed := uint64(1); seed <= 150; seed++ {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { seen[checkViews(t, generate(t, seed))]++ })
	}
	// The draws must reach every outcome, or the property says nothing of the one they miss.
	for _, o := range []analysis.Outcome{analysis.GatePassed, analysis.GateRegressed, analysis.GateJudgedNothing,
		analysis.GatePassedUnjudged, analysis.GateUndecided} {
		if seen[o] == 0 {
			t.Errorf("no draw ended %q (outcomes drawn: %v)", o, seen)
		}
	}
}

// generated is one drawn comparison: its artifacts' files, and the options the analysis judges them by.
type generated struct {
	files         []string
	opts          analysis.Options
	sequential    bool // compare's sequential rule took the pairs (only compare's views apply)
	allowUnjudged bool
	what          string
}

// generate draws a comparison from seed and writes its artifacts.
func generate(t *testing.T, seed uint64) generated {
	r := rand.New(rand.NewPCG(seed, 41))
	kind := r.IntN(3) // 0: two sessions of one device, 1: two devices, 2: one compare session
	programs := 2
	if kind == 2 && r.IntN(3) == 0 {
		programs = 3
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range fakeart.Base {
			if n != cases.RefCase && !yield(n) {
				return
			}
		}
	})
	noise := 0.02 + 0.3*r.Float64()
	n := 1 + r.IntN(12)
	g := generated{opts: analysis.Options{}.WithDefaults(), allowUnjudged: r.IntN(4) == 0}
	session := fmt.Sprintf("20261207T000000Z-%08x", seed)
	codecs := []string{"json", "fast", "binary"}
	dir := t.TempDir()
	for i := range programs {
		medians := map[string]float64{cases.RefCase: fakeart.Base[cases.RefCase]}
		for _, name := range names {
			if r.IntN(8) == 0 { // missing on this side
				continue
			}
			factor := 1.0
			if i > 0 && r.IntN(5) > 1 {
				factor = math.Exp(math.Log(0.5) + r.Float64()*(math.Log(50)-math.Log(0.5))) // -50% to 50x
			}
			medians[name] = fakeart.Base[name] * factor
		}
		procs := n
		if kind != 2 {
			procs = 1 + r.IntN(12)
		}
		a := fakeart.WithProcesses(seed*7+uint64(i), noise, medians, procs)
		a.Codec = codecs[i]
		a.Device.Arch = "x86_64"
		if kind == 1 && i > 0 {
			a.Device.Arch = "aarch64"
		}
		if kind == 2 {
			a.Session = artifact.Session{ID: session, Program: i, Programs: []string{"json linux", "fast linux", "binary linux"}[:programs]}
		}
		file := filepath.Join(dir, fmt.Sprintf("%c-%s.json", 'a'+i, a.Codec))
		if err := artifact.Write(file, a); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		g.files = append(g.files, file)
		g.what += fmt.Sprintf(" %s:%d processes", a.Codec, procs)
	}
	if kind == 2 && r.IntN(2) == 0 {
		g.sequential = true
		g.opts = analysis.SequentialOptions(g.opts, 1+r.IntN(4), "60 s")
	}
	g.what = fmt.Sprintf("kind %d, sequential %v, allow-unjudged %v:%s", kind, g.sequential, g.allowUnjudged, g.what)
	return g
}

// verdicts are the verdicts of one view: "label|case" -> verdict.
type verdicts map[string]string

func checkViews(t *testing.T, g generated) analysis.Outcome {
	t.Logf("%s", g.what)
	var loaded []analysis.Loaded
	for _, f := range g.files {
		l, err := analysis.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		loaded = append(loaded, l...)
	}
	table := analysis.Build(loaded, g.opts, nil)
	want := verdicts{}
	rs := analysis.Results{AllowUnjudged: g.allowUnjudged}
	for _, col := range table.Columns[1:] {
		if col.Comparison == nil {
			t.Fatalf("%s not compared: %s", col.Label, col.NotCompared)
		}
		rs.Results = append(rs.Results, col.Comparison)
		for _, c := range col.Comparison.Cases {
			want[col.Comparison.Label+"|"+c.Case] = string(c.Verdict)
		}
	}
	outcome := rs.Outcome()
	status := map[analysis.Outcome]int{analysis.GateRegressed: exitRegressed, analysis.GateJudgedNothing: exitUnjudged,
		analysis.GateUndecided: exitUnjudged}[outcome]
	labels := make([]string, len(table.Columns))
	for i, c := range table.Columns {
		labels[i] = c.Label
	}

	// compare: its table and comparisons in every format, the pull-request report, and --gate's exit status.
	report := filepath.Join(t.TempDir(), "report.md")
	for _, format := range []string{"text", "markdown", "json"} {
		var out, errOut testenv.Buffer
		o := &compareOptions{IO: &IOStreams{Out: &out, ErrOut: &errOut}, Format: format, Report: report,
			AllowUnjudged: g.allowUnjudged}
		res, err := showSession(o, loaded, g.opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := exitOf(gateOutcome(res)); got != status {
			t.Errorf("compare --gate exits %d, the outcome %q is %d", got, outcome, status)
		}
		switch format {
		case "json":
			var doc struct {
				Table  json.RawMessage `json:"table"`
				Paired json.RawMessage `json:"paired"`
			}
			if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
				t.Fatal(err)
			}
			same(t, "compare json table", want, tableJSON(t, doc.Table, labels))
			same(t, "compare json comparisons", want, gateReportJSON(t, doc.Paired))
		default:
			sameClasses(t, "compare "+format+" table", want, table, out.String())
			same(t, "compare "+format+" comparisons", want, gateText(out.String(), format, rs))
		}
	}
	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "the pull-request report", want, prReport(string(md), rs))
	checkHeadline(t, string(md), outcome)
	if g.sequential {
		return outcome // show and gate judge the same artifacts without the rule: only compare's views apply
	}

	// show, in every format.
	for _, format := range []string{"text", "markdown", "json", "csv", "html"} {
		fs := newFakes(false, false)
		if code := fs.run(append([]string{"show", "--format", format}, g.files...)...); code != 0 {
			t.Fatalf("show --format %s exits %d: %s", format, code, fs.stderr.String())
		}
		out := fs.stdout.String()
		switch format {
		case "json":
			same(t, "show json", want, tableJSON(t, json.RawMessage(out), labels))
		case "csv":
			same(t, "show csv", want, tableCSV(t, out, labels, rs))
		case "html":
			sameClasses(t, "show html", want, table, regexp.MustCompile(`</t[dh]><t[dh][^>]*>`).ReplaceAllString(out, "  "))
		default:
			sameClasses(t, "show "+format, want, table, out)
		}
	}
	if len(g.files) != 2 {
		return outcome
	}
	// gate, in every format, and its exit status and closing line.
	for _, format := range []string{"text", "markdown", "json"} {
		fs := newFakes(false, false)
		args := []string{"gate", "--format", format, g.files[0], g.files[1]}
		if g.allowUnjudged {
			args = append(args, "--allow-unjudged")
		}
		if code := fs.run(args...); code != status {
			t.Errorf("gate --format %s exits %d, the outcome %q is %d: %s", format, code, outcome, status, fs.stderr.String())
		}
		out := fs.stdout.String()
		if format == "json" {
			same(t, "gate json", want, gateReportJSON(t, json.RawMessage(out)))
			continue
		}
		same(t, "gate "+format, want, gateText(out, format, rs))
		checkSummary(t, out, outcome)
	}
	return outcome
}

// exitOf is the exit status an error ends the command with (executeWith).
func exitOf(err error) int {
	var ex exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ex):
		return int(ex)
	}
	return 1
}

// same fails when a view's verdicts differ from the analysis's.
func same(t *testing.T, view string, want, got verdicts) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s is %q, the analysis says %q", view, k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s is %q, the analysis has no such case", view, k, v)
		}
	}
}

// classes are what a table's "×ref vs" and "p" cells can show of a verdict: a change that counts (the ratio with its
// p), none ("~"), not judged, undecided; a case missing on a side shows none of them.
func class(verdict string, change float64) string {
	switch analysis.Verdict(verdict) {
	case analysis.Same, analysis.Unseen:
		return "~"
	case analysis.Regressed, analysis.Improved:
		if change > 0 {
			return "slower"
		}
		return "faster"
	case analysis.Unjudged, analysis.Undecided:
		return verdict
	}
	return ""
}

// vsCell matches a table's pair of "×ref vs" and "p" cells.
var vsCell = regexp.MustCompile(`(~|[0-9.,]+x)\s+(p=[0-9.]+|not judged|undecided|-)(\s{2}|\s*\||\s*$)`)

// sameClasses checks a table (text, markdown, html with its cells spaced out) row by row: the vs and p cells of its
// columns in order say each verdict's class.
func sameClasses(t *testing.T, view string, want verdicts, table *analysis.Table, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for _, row := range table.Rows {
		if row.Case == cases.RefCase {
			continue
		}
		var expect []string
		for i, cell := range row.Cells[1:] {
			cmp := cell.Comparison
			if cmp == nil {
				continue
			}
			c := class(want[table.Columns[i+1].Comparison.Label+"|"+row.Case], cmp.Change)
			if c != "" && cell.VsFirst != nil || c == string(analysis.Unjudged) || c == string(analysis.Undecided) {
				expect = append(expect, c)
			}
		}
		var got []string
		for _, l := range lines {
			l = strings.NewReplacer("|", "  ", "`", "", "<td>", "  ", "<tr>", "  ", "</td>", "  ").Replace(l)
			fields := strings.Fields(l)
			if len(fields) == 0 || fields[0] != row.Case {
				continue
			}
			for _, m := range vsCell.FindAllStringSubmatch(l, -1) {
				switch {
				case m[2] == "-":
				case m[1] == "~":
					got = append(got, "~")
				case strings.HasPrefix(m[2], "p="):
					v, _ := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSuffix(m[1], "x"), ",", ""), 64)
					got = append(got, map[bool]string{true: "slower", false: "faster"}[v > 1])
				default:
					got = append(got, m[2])
				}
			}
			break
		}
		if !slices.Equal(got, expect) {
			t.Errorf("%s: %s shows %q, the analysis says %q", view, row.Case, got, expect)
		}
	}
}

// tableJSON reads the verdicts of a table in json (show --format json, compare's "table").
func tableJSON(t *testing.T, data json.RawMessage, labels []string) verdicts {
	t.Helper()
	var tab struct {
		Rows []struct {
			Case  string `json:"case"`
			Cells []struct {
				Comparison *struct {
					Verdict string `json:"verdict"`
				} `json:"comparison"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(data, &tab); err != nil {
		t.Fatal(err)
	}
	out := verdicts{}
	for _, r := range tab.Rows {
		for i, c := range r.Cells {
			if c.Comparison != nil {
				out[resultLabel(labels[i])+"|"+r.Case] = c.Comparison.Verdict
			}
		}
	}
	return out
}

// resultLabel is a column's label as its comparison names it (without the emulation mark).
func resultLabel(label string) string { return strings.TrimSuffix(label, " (emulated)") }

// tableCSV reads the verdicts of show --format csv.
func tableCSV(t *testing.T, out string, labels []string, rs analysis.Results) verdicts {
	t.Helper()
	var data []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "# ") {
			data = append(data, l)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(strings.Join(data, "\n"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts{}
	col := slices.Index(recs[0], "verdict")
	for _, rec := range recs[1:] {
		if rec[col] != "" {
			got[resultLabel(rec[2])+"|"+rec[0]] = rec[col]
		}
	}
	return got
}

// gateReportJSON reads the verdicts of gate --format json (compare's "paired").
func gateReportJSON(t *testing.T, data json.RawMessage) verdicts {
	t.Helper()
	var doc struct {
		Results []struct {
			Label string `json:"label"`
			Cases []struct {
				Case    string `json:"case"`
				Verdict string `json:"verdict"`
			} `json:"cases"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	got := verdicts{}
	for _, r := range doc.Results {
		for _, c := range r.Cases {
			got[r.Label+"|"+c.Case] = c.Verdict
		}
	}
	return got
}

// verdictWords are the words a verdict cell starts with, upper case when it fails the gate.
var verdictWords = regexp.MustCompile(`(?i)^\**(same|improved|regressed|unconfirmed|failed|missing|cannot see|not judged|undecided|skipped)\b`)

// gateText reads the verdicts of the gate's report in text or markdown: one section per comparison, titled with its
// label, whose rows end with the verdict.
func gateText(out, format string, rs analysis.Results) verdicts {
	got := verdicts{}
	label := ""
	for _, l := range strings.Split(strings.ReplaceAll(out, "`", ""), "\n") {
		for _, res := range rs.Results {
			if strings.HasPrefix(l, res.Label+": ") || l == "### "+res.Label {
				label = res.Label
			}
		}
		if label == "" {
			continue
		}
		var cells []string
		if format == "markdown" {
			cells = strings.Split(strings.Trim(l, "| "), " | ")
		} else {
			cells = regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1)
		}
		if len(cells) < 2 {
			continue
		}
		m := verdictWords.FindStringSubmatch(cells[len(cells)-1])
		if m == nil {
			continue
		}
		for _, res := range rs.Results {
			if res.Label == label && slices.ContainsFunc(res.Cases, func(c analysis.CaseResult) bool { return c.Case == cells[0] }) {
				got[label+"|"+cells[0]] = strings.ToLower(m[1])
			}
		}
	}
	return got
}

// prReport reads the verdicts of the pull-request report: its tables, with a program column when several programs
// were compared.
func prReport(md string, rs analysis.Results) verdicts {
	got := verdicts{}
	for _, l := range strings.Split(strings.ReplaceAll(md, "`", ""), "\n") {
		if !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "| case") || strings.HasPrefix(l, "| program") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		label := rs.Results[0].Label
		if len(rs.Results) > 1 {
			label, cells = cells[0], cells[1:]
		}
		if m := verdictWords.FindStringSubmatch(cells[len(cells)-1]); m != nil {
			got[label+"|"+cells[0]] = strings.ToLower(m[1])
		}
	}
	return got
}

// checkHeadline checks the report's headline and closing line against the outcome.
func checkHeadline(t *testing.T, md string, o analysis.Outcome) {
	t.Helper()
	icon := map[analysis.Outcome]string{analysis.GatePassed: ":white_check_mark:", analysis.GateRegressed: ":x:",
		analysis.GateJudgedNothing: ":grey_question:", analysis.GatePassedUnjudged: ":warning:", analysis.GateUndecided: ":hourglass:"}[o]
	if !strings.HasPrefix(md, "### "+icon+" ") {
		t.Errorf("the report's headline is %q, the outcome %q", strings.SplitN(md, "\n", 2)[0], o)
	}
	verb := map[bool]string{true: "fails", false: "passes"}[o.Failed()]
	if !strings.Contains(md, fmt.Sprintf("The check %s: %s.", verb, o)) {
		t.Errorf("the report does not close with the outcome %q:\n%s", o, md)
	}
}

// checkSummary checks the gate's closing line against the outcome.
func checkSummary(t *testing.T, out string, o analysis.Outcome) {
	t.Helper()
	prefix := map[analysis.Outcome]string{analysis.GatePassed: "gate: ok, nothing regressed", analysis.GateRegressed: "regressed:",
		analysis.GateJudgedNothing: "gate: not passed: judged nothing", analysis.GatePassedUnjudged: "gate: ok by --allow-unjudged",
		analysis.GateUndecided: "gate: not passed: could not tell"}[o]
	if !strings.Contains(out, prefix) {
		t.Errorf("the gate's closing line does not say %q for the outcome %q:\n%s", prefix, o, out)
	}
}
