package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/reports"
	"github.com/bench-bridge/bench-bridge/session"
	"github.com/bench-bridge/bench-bridge/stats"
)

// TestDocsSayHowFewCanJudge: docs/gate.md's table of the least processes each test needs is what the tests
// themselves say (stats.LeastUP, LeastSignP, SequentialNeeds, ChangePointNeeds) at alpha 0.05 and 0.01.
func TestDocsSayHowFewCanJudge(t *testing.T) {
	data, err := os.ReadFile("../../docs/gate.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- least processes -->\n")
	block, _, ok2 := strings.Cut(rest, "<!-- end -->")
	if !ok || !ok2 {
		t.Fatal("docs/gate.md: no <!-- least processes --> table")
	}
	if want := leastTable(); block != want {
		t.Errorf("docs/gate.md's least processes table is\n%s\nthe tests say\n%s", block, want)
	}
}

// leastTable is the table of the least processes each test needs, from the tests.
func leastTable() string {
	alphas := []float64{0.05, 0.01}
	cell := func(f func(alpha float64) string) string {
		return f(alphas[0]) + " | " + f(alphas[1])
	}
	u := cell(func(a float64) string {
		n := stats.UTestNeeds(a)
		return fmt.Sprintf("%d processes a side (p ≥ %.2g)", n, stats.LeastUP(n, n))
	})
	sign := cell(func(a float64) string {
		n := stats.SignTestNeeds(a)
		return fmt.Sprintf("%d rounds (p ≥ %.2g)", n, stats.LeastSignP(n))
	})
	seq := cell(func(a float64) string {
		n := stats.SequentialNeeds(a)
		k := stats.SequentialEndLook(n)
		return fmt.Sprintf("%d rounds (look %d, alpha %.2g)", n, k, stats.SequentialAlpha(a, k))
	})
	cp := cell(func(a float64) string {
		th := stats.DefaultChangePointThresholds
		return fmt.Sprintf("%d nights, %d each side (p ≥ %.2g)", stats.ChangePointNeeds(th), th.MinSegment, stats.LeastPermutationP(th.Permutations))
	})
	return "| test | where | at alpha 0.05 | at alpha 0.01 |\n|---|---|---|---|\n" +
		"| U test over the processes' ×ref | `gate` of two runs, each of that many processes | " + u + " |\n" +
		"| sign test over the process pairs | `compare --budget 0`, `gate --confirm`'s rerun (" + strconv.Itoa(session.CompareRounds) +
		" rounds or more), `bisect --budget 0` | " + sign + " |\n" +
		"| sequential rule, its rounds capped by `--runs` | `compare`, `bisect` (the default) | " + seq + " |\n" +
		"| change points (permutation test, " + strconv.Itoa(stats.DefaultChangePointThresholds.Permutations) +
		" shuffles) | `history changes`, the nightly | " + cp + " |\n" +
		"| instruction and allocation counts | `gate --metric instructions`, `--metric allocations` | 1 process a side: exact counts, no test | the same |\n"
}

// TestDocsSayOneRoundsRule: what the docs and the help say about compare's and bisect's rounds is the rule the code
// follows (session.Rounds): the rounds of --budget 0, the cap of a sequential session, the default budget.
func TestDocsSayOneRoundsRule(t *testing.T) {
	checks := []struct {
		re   *regexp.Regexp
		want string
	}{
		{regexp.MustCompile("`--budget 0`(?::| runs| runs these) (\\d+)|(\\d+) rounds of `--budget 0`|(\\d+) with --budget 0"), strconv.Itoa(session.CompareRounds)},
		{regexp.MustCompile(`\(at most (\d+)\)|at most (\d+) when it is not given`), strconv.Itoa(session.SequentialRounds)},
		{regexp.MustCompile("`--budget`, default (\\w+)|--budget \\(default (\\w+)\\)|within `--budget` \\((\\d\\w*)|`--budget` \\(default (\\d\\w*)"), session.CompareBudget.String()},
	}
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, f := range append(files, "../../README.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = strings.Join(strings.Fields(string(data)), " ")
	}
	for _, cmd := range []string{"compare", "bisect"} {
		fs := newFakes(false, false)
		if code := fs.run(cmd, "--help"); code != 0 {
			t.Fatalf("%s --help exits %d", cmd, code)
		}
		help := strings.Join(strings.Fields(fs.stdout.String()), " ")
		if !strings.Contains(help, session.RoundsRule) {
			t.Errorf("%s --help does not say the rounds rule %q", cmd, session.RoundsRule)
		}
		texts[cmd+" --help"] = help
	}
	found := 0
	for where, text := range texts {
		if strings.HasSuffix(where, "method.md") {
			continue // measurements of their day, with the settings of that day
		}
		for _, c := range checks {
			for _, m := range c.re.FindAllStringSubmatch(text, -1) {
				got := strings.Join(m[1:], "")
				if d, err := time.ParseDuration(got); err == nil && strings.ContainsAny(got, "hms") {
					got = d.String() // 60s and 1m0s are one budget
				}
				found++
				if got != c.want {
					t.Errorf("%s: %q says %s, the code %s", where, m[0], got, c.want)
				}
			}
		}
	}
	if found < 5 {
		t.Errorf("found %d statements of the rounds rule in the docs and help; the patterns no longer match what they say", found)
	}
	fs := newFakes(false, false)
	fs.run("compare", "--help")
	for _, w := range []string{"NAME@REV", "NAME@merge-base:BRANCH", "undecided"} {
		if !strings.Contains(fs.stdout.String(), w) {
			t.Errorf("compare --help does not mention %s", w)
		}
	}
}

// TestDocsShowEachHeadline: docs/gate.md shows the pull-request report of each headline a reviewer meets (slower, not
// slower, could not tell), as reports.RenderPullRequest writes them today; -update-golden rewrites them.
func TestDocsShowEachHeadline(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	pr := func(cases ...analysis.CaseResult) analysis.Results {
		return analysis.Results{Results: []*analysis.Result{{Label: "mine linux", Method: analysis.Paired, Threshold: 0.1,
			Alpha: 0.05, Budget: "60 s", Cases: cases}}}
	}
	same := analysis.CaseResult{Case: "callback", Verdict: analysis.Same, Baseline: 48.1, Current: 48.9, Change: 0.016,
		Low: -0.021, High: 0.034, P: p(0.42), Threshold: 0.1}
	examples := []struct {
		title string
		rs    analysis.Results
	}{
		{"slower", pr(analysis.CaseResult{Case: "script_to_host_scalar", Verdict: analysis.Regressed, Baseline: 50.2,
			Current: 57.9, Change: 0.153, Low: 0.121, High: 0.188, P: p(0.0001), Threshold: 0.1}, same)},
		{"not slower", pr(analysis.CaseResult{Case: "script_to_host_scalar", Verdict: analysis.Same, Baseline: 50.2,
			Current: 50.6, Change: 0.008, Low: -0.012, High: 0.031, P: p(0.64), Threshold: 0.1}, same)},
		{"could not tell", pr(analysis.CaseResult{Case: "script_to_host_scalar", Verdict: analysis.Undecided, Baseline: 50.2,
			Current: 54.8, Change: 0.092, Low: -0.031, High: 0.15, P: p(0.11), Threshold: 0.1,
			Note: "could still be -3.1% to +15.0%: neither clearly beyond nor clearly within the 10% minimum when the rounds ended; a longer --budget or a larger --min-effect would tell"}, same)},
	}
	var b strings.Builder
	for _, e := range examples {
		var md strings.Builder
		if err := reports.RenderPullRequest(&md, e.rs, "mine@merge-base:origin/main linux", nil); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:\n\n````markdown\n%s````\n\n", strings.ToUpper(e.title[:1])+e.title[1:], md.String())
	}
	const open, end = "<!-- headline examples -->\n", "<!-- end -->"
	path := "../../docs/gate.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(data), open)
	block, after, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("%s: no %q ... %q block", path, strings.TrimSpace(open), end)
	}
	if *updateGolden {
		if err := os.WriteFile(path, []byte(before+open+b.String()+end+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if block != b.String() {
		t.Errorf("%s: the headline examples are not what the report writes today (go test ./cmd/bench-bridge -run TestDocsShowEachHeadline -update-golden):\n%s", path, b.String())
	}
}
