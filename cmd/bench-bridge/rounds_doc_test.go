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
		"| sign test over the process pairs | `compare --budget 0`, `gate --confirm`'s rerun (" + strconv.Itoa(compareRounds) +
		" rounds or more), `bisect --budget 0` | " + sign + " |\n" +
		"| sequential rule, its rounds capped by `--runs` | `compare`, `bisect` (the default) | " + seq + " |\n" +
		"| change points (permutation test, " + strconv.Itoa(stats.DefaultChangePointThresholds.Permutations) +
		" shuffles) | `history changes`, the nightly | " + cp + " |\n" +
		"| instruction and allocation counts | `gate --metric instructions`, `--metric allocations` | 1 process a side: exact counts, no test | the same |\n"
}

// TestDocsSayOneRoundsRule: what the docs and the help say about compare's and bisect's rounds is the rule the code
// follows (roundsOf): the rounds of --budget 0, the cap of a sequential session, the default budget.
func TestDocsSayOneRoundsRule(t *testing.T) {
	checks := []struct {
		re   *regexp.Regexp
		want string
	}{
		{regexp.MustCompile("`--budget 0`(?::| runs| runs these) (\\d+)|(\\d+) rounds of `--budget 0`|(\\d+) with --budget 0"), strconv.Itoa(compareRounds)},
		{regexp.MustCompile(`\(at most (\d+)\)|at most (\d+) when it is not given`), strconv.Itoa(sequentialRounds)},
		{regexp.MustCompile("`--budget`, default (\\w+)|--budget \\(default (\\w+)\\)|within `--budget` \\((\\d\\w*)|`--budget` \\(default (\\d\\w*)"), compareBudget.String()},
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
		if !strings.Contains(help, roundsRule) {
			t.Errorf("%s --help does not say the rounds rule %q", cmd, roundsRule)
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
