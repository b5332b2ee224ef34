package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// TestMeasureUserProgram measures how well compare finds a slowdown of a program of one's own and the reference
// bridge's smallest, and prints the tables of docs/method.md ("A program of your own: protocol 1 and 2"): compares
// of the Duktape example (protocol 2, and as a protocol 1 program) with and without a 10% slowdown, and of the json
// bridge with and without a 2% one. It measures time for most of an hour, so it runs only when
// BB_MEASURE_USERPROG=1 (scripts/measure-userprog sets it); BB_MEASURE_USERPROG_OUT names a file the tables are added
// to and BB_MEASURE_USERPROG_DIR keeps the artifacts. It fails only when a step cannot run: the numbers are what it
// reports, not what it asserts.
func TestMeasureUserProgram(t *testing.T) {
	if os.Getenv("BB_MEASURE_USERPROG") != "1" {
		t.Skip("a measurement of most of an hour: run scripts/measure-userprog (BB_MEASURE_USERPROG=1)")
	}
	requireFile(t, "/usr/include/duktape.h", "apt-get install duktape-dev (scripts/setup does it)")
	dir := os.Getenv("BB_MEASURE_USERPROG_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	cfg := copyExample(t, "duktape")
	addProtocol1Bridges(t, cfg)
	mustRun(t, localName(), "--config", cfg, "--bridge", "duktape", "--out", filepath.Join(dir, "warm-duktape.json"))
	mustRun(t, localName(), "--cases", "script_to_host_scalar", "--out", filepath.Join(dir, "warm-json.json"))

	var out strings.Builder
	measuredAt(&out)
	fmt.Fprintf(&out, "CONFIG is examples/duktape/bench-bridge.toml with duktape-v1 and duktape-v1-slow, the example as a "+
		"protocol 1 program (testdata/protocol1.sh).\n\n")
	fmt.Fprintf(&out, "| compare, 5 runs each | flagged | change measured (each run's paired median) | one compare | goal |\n|---|---|---|---|---|\n")
	duktape := []string{"--config", cfg}
	json2 := []string{"--cases", "script_to_host_scalar", "--min-effect", "0.02"}
	const longRounds = 100
	var pooled [2][]pairSet // the 2% compares' pairs, A/B and A/A, at both round counts
	for _, tr := range []struct {
		a, b  string
		args  []string
		goal  string
		json2 int // 1 for a 2% A/B of the json bridge, 2 for its A/A, 0 otherwise
	}{
		{"duktape", "duktape:slowdown=0.10", duktape, "5 of 5", 0},
		{"duktape", "duktape", duktape, "0 of 5", 0},
		{"duktape-v1", "duktape-v1-slow", duktape, "-", 0},
		{"duktape-v1", "duktape-v1", duktape, "-", 0},
		{"json", "json:slowdown=0.02", json2, "5 of 5", 1},
		{"json", "json", json2, "0 of 5", 2},
		{"json", "json:slowdown=0.02", append(slices.Clone(json2), "--runs", strconv.Itoa(longRounds)), "5 of 5", 1},
		{"json", "json", append(slices.Clone(json2), "--runs", strconv.Itoa(longRounds)), "0 of 5", 2},
	} {
		res := compareTrials(t, dir, tr.a, tr.b, tr.args)
		if tr.json2 > 0 {
			pooled[tr.json2-1] = append(pooled[tr.json2-1], res.pairs...)
		}
		var changes []string
		for _, name := range res.order {
			changes = append(changes, fmt.Sprintf("%s %s", name, joinFloats(res.changes[name], "%+.1f%%")))
		}
		fmt.Fprintf(&out, "| `compare linux %s %s %s --gate` | %d of 5 | %s | %.1f s (median; at most %.1f s) | %s |\n",
			tr.a, tr.b, strings.ReplaceAll(strings.Join(tr.args, " "), cfg, "CONFIG"), res.flagged,
			strings.Join(changes, "; "), stats.Median(res.secs), slices.Max(res.secs), tr.goal)
	}
	resampleRounds(&out, pooled[0], pooled[1], 0.02)

	report(t, out.String())
}

// TestMeasureProtocol1Layouts measures the ways of forming a protocol 1 program's ratio side by side, on the Duktape
// example (3 cases) and on the json bridge without --ref (7 cases), and prints the tables of docs/method.md ("The
// ratio of a protocol 1 program"). It runs only when BB_MEASURE_USERPROG=1 (scripts/measure-userprog), with
// BB_MEASURE_USERPROG_OUT as TestMeasureUserProgram's (the tables are added to the file).
func TestMeasureProtocol1Layouts(t *testing.T) {
	if os.Getenv("BB_MEASURE_USERPROG") != "1" {
		t.Skip("a measurement of about a quarter of an hour: run scripts/measure-userprog (BB_MEASURE_USERPROG=1)")
	}
	requireFile(t, "/usr/include/duktape.h", "apt-get install duktape-dev (scripts/setup does it)")
	cfg := copyExample(t, "duktape")
	mustRun(t, localName(), "--config", cfg, "--bridge", "duktape", "--out", filepath.Join(t.TempDir(), "warm.json"))
	ctx := context.Background()
	src, err := build.QuickJSSource(ctx, "", os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := build.BuildQuickJS(ctx, build.Host(), src, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	bridge, err := build.BuildProgram(ctx, build.Host(), lib, artifact.ProgramBridge, "json", os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	measuredAt(&out)
	measureLayouts(t, &out, "the Duktape example", filepath.Join(filepath.Dir(cfg), "duktape-bench"),
		[]string{cases.RefCase, "script_to_host_scalar", "callback"}, 60)
	out.WriteString("\n")
	measureLayouts(t, &out, "the json bridge", bridge.Path, []string{cases.RefCase, "script_to_host_scalar", "callback",
		"host_to_script_string_1k", "ui_ops_calls", "error_host_to_script", "script_to_host_object"}, 30)
	report(t, out.String())
}

// measuredAt writes when the measurement started and the load average then.
func measuredAt(out *strings.Builder) {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "Measured %s, load average at the start %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		strings.Join(strings.Fields(string(load))[:3], " "))
}

// report logs a measurement's tables and adds them to $BB_MEASURE_USERPROG_OUT when it is set.
func report(t *testing.T, tables string) {
	t.Helper()
	t.Log("\n" + tables)
	file := os.Getenv("BB_MEASURE_USERPROG_OUT")
	if file == "" {
		return
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(tables + "\n"); err != nil {
		t.Fatal(err)
	}
}

// addProtocol1Bridges declares, beside the Duktape example's config, the same program as a protocol 1 program would
// run (testdata/protocol1.sh): duktape-v1, and duktape-v1-slow with the example's own 10% slowdown, which
// bench-bridge cannot ask a protocol 1 program for.
func addProtocol1Bridges(t *testing.T, cfg string) {
	t.Helper()
	wrapper, err := filepath.Abs(filepath.Join("testdata", "protocol1.sh"))
	if err != nil {
		t.Fatal(err)
	}
	ex := filepath.Dir(cfg)
	for name, env := range map[string]string{"v1.sh": "", "v1-slow.sh": "BB_PROTOCOL1_SLOWDOWN=0.10 "} {
		script := fmt.Sprintf("#!/bin/sh\n%sexec bash %q \"$(dirname \"$0\")/duktape-bench\" \"$@\"\n", env, wrapper)
		if err := os.WriteFile(filepath.Join(ex, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n[bridges.duktape-v1]\nbinary = \"v1.sh\"\n\n[bridges.duktape-v1-slow]\nbinary = \"v1-slow.sh\"\n"); err != nil {
		t.Fatal(err)
	}
}

// pairSet is the paired values of one case of one compare: each round's ratio_to_ref of A and of B.
type pairSet struct{ a, b []float64 }

// trialResult is what 5 runs of one compare gave.
type trialResult struct {
	flagged int
	order   []string             // the cases compared
	changes map[string][]float64 // each run's paired median change of each case, in per cent
	secs    []float64
	pairs   []pairSet
}

// compareTrials runs `compare linux A B ARGS... --gate` 5 times and reads what each run measured.
func compareTrials(t *testing.T, dir, a, b string, args []string) trialResult {
	t.Helper()
	res := trialResult{changes: map[string][]float64{}}
	slug := strings.NewReplacer(":", "-", "=", "")
	for i := range 5 {
		out := filepath.Join(dir, fmt.Sprintf("cmp-%s-%s-%s-%d", slug.Replace(a), slug.Replace(b), runsOf(args), i))
		start := time.Now()
		_, stderr, code := run(t, append([]string{"compare", localName(), a, b, "--gate", "-q", "--out", out}, args...)...)
		res.secs = append(res.secs, time.Since(start).Seconds())
		switch code {
		case exitRegressed:
			res.flagged++
		case 0:
		default:
			t.Fatalf("compare %s %s: exit %d\n%s", a, b, code, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(out, "[ab]-*.json"))
		if len(files) != 2 {
			t.Fatalf("%s: artifacts %v", out, files)
		}
		base, cur := readArtifact(t, files[0]), readArtifact(t, files[1])
		for _, c := range base.Cases {
			if c.Name == cases.RefCase || cur.Case(c.Name) == nil {
				continue
			}
			xs, ys := analysis.PairedValues(&c, cur.Case(c.Name))
			p, err := stats.PairedRatio(xs, ys, stats.Level)
			if err != nil {
				t.Fatalf("%s %s: %v", out, c.Name, err)
			}
			if !slices.Contains(res.order, c.Name) {
				res.order = append(res.order, c.Name)
			}
			res.changes[c.Name] = append(res.changes[c.Name], 100*(p.Ratio-1))
			res.pairs = append(res.pairs, pairSet{xs, ys})
		}
	}
	return res
}

// runsOf names a compare's rounds for its folder: the --runs given, or "default".
func runsOf(args []string) string {
	if i := slices.Index(args, "--runs"); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return "default"
}

// resampleRounds estimates, from the 2% compares' pooled pairs, how often compare's paired rule (a sign test at
// 0.05 and a change over half the minimum effect) flags A/B and A/A sessions of n rounds, drawing each session's
// pairs at random from one compare's own pairs.
func resampleRounds(out *strings.Builder, ab, aa []pairSet, minEffect float64) {
	if len(ab) == 0 || len(aa) == 0 {
		return
	}
	fmt.Fprintf(out, "\nThe paired rule over sessions of n rounds drawn from the pairs of the json 2%% compares above (1000 draws each):\n\n"+
		"| rounds | A/B flagged | A/A flagged |\n|---|---|---|\n")
	r := rand.New(rand.NewPCG(1, 2))
	rate := func(sets []pairSet, n int) float64 {
		flagged := 0
		for range 1000 {
			s := sets[r.IntN(len(sets))]
			xs, ys := make([]float64, n), make([]float64, n)
			for i := range n {
				k := r.IntN(len(s.a))
				xs[i], ys[i] = s.a[k], s.b[k]
			}
			p, err := stats.PairedRatio(xs, ys, stats.Level)
			if err == nil && stats.PairedThresholds(0.05, minEffect).Tested(p.Ratio-1, p.P) == stats.Worse {
				flagged++
			}
		}
		return float64(flagged) / 1000
	}
	for _, n := range []int{40, 100, 200, 400} {
		fmt.Fprintf(out, "| %d | %.0f%% | %.0f%% |\n", n, 100*rate(ab, n), 100*rate(aa, n))
	}
}

// layout is one way of running a protocol 1 program's processes: the runs it makes of the case order, and the
// case's ratio in each.
type layout struct {
	name string
	runs func(order []string) [][]string // the program's case lists, one per OS process
	ref  bool                            // --ref ref_js_loop (protocol 2)
}

// measureLayouts runs prog (what, in the table's words) over names as the ways of forming a ratio would, all in
// every round in a rotating order, two processes each (A and A again), and prints for each how far the two
// processes' ratios of each case lie apart: the noise a paired test between two programs has to see through.
func measureLayouts(t *testing.T, out *strings.Builder, what, prog string, names []string, rounds int) {
	t.Helper()
	others := func(order []string) []string {
		return slices.DeleteFunc(slices.Clone(order), func(n string) bool { return n == cases.RefCase })
	}
	perCase := func(refFirst bool) func([]string) [][]string {
		return func(order []string) [][]string {
			var runs [][]string
			for _, n := range others(order) {
				if refFirst {
					runs = append(runs, []string{cases.RefCase, n})
				} else {
					runs = append(runs, []string{n, cases.RefCase})
				}
			}
			return runs
		}
	}
	layouts := []layout{
		{"protocol 2: --ref, a ref sample before every sample", func(o []string) [][]string { return [][]string{o} }, true},
		{"protocol 1, one process of every case (before)", func(o []string) [][]string { return [][]string{o} }, false},
		{"protocol 1, a process per case, ref_js_loop first (bench-bridge now)", perCase(true), false},
		{"protocol 1, a process per case, ref_js_loop after", perCase(false), false},
	}
	apart := make([]map[string][]float64, len(layouts))
	secs := make([]float64, len(layouts))
	r := rand.New(rand.NewPCG(5, 6))
	for round := range rounds {
		order := slices.Clone(names)
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for k := range layouts {
			i := (k + round) % len(layouts)
			if apart[i] == nil {
				apart[i] = map[string][]float64{}
			}
			start := time.Now()
			x, y := layoutRatios(t, prog, layouts[i], order), layoutRatios(t, prog, layouts[i], order)
			secs[i] += time.Since(start).Seconds()
			for _, n := range others(names) {
				apart[i][n] = append(apart[i][n], math.Abs(math.Log(y[n]/x[n])))
			}
		}
	}
	fmt.Fprintf(out, "%d rounds of %s (%s), every way in every round, two processes each: how far apart the two "+
		"processes' ratios to ref_js_loop lie (the median pair and the 75th percentile; the share of pairs within 5%%), "+
		"and the seconds one process took.\n\n| way | %s | seconds |\n|---|%s---|\n",
		rounds, what, strings.Join(names, ", "), strings.Join(others(names), " | "), strings.Repeat("---|", len(names)-1))
	for i, l := range layouts {
		var cells []string
		for _, n := range others(names) {
			d := slices.Sorted(slices.Values(apart[i][n]))
			within := 0
			for _, v := range d {
				if v < math.Log(1.05) {
					within++
				}
			}
			cells = append(cells, fmt.Sprintf("%.1f%%, %.1f%%; %d%%", 100*(math.Exp(stats.Median(d))-1),
				100*(math.Exp(d[len(d)*3/4])-1), 100*within/len(d)))
		}
		fmt.Fprintf(out, "| %s | %s | %.2f |\n", l.name, strings.Join(cells, " | "), secs[i]/float64(2*rounds))
	}
}

// layoutRatios runs one process of l over order with bench-bridge's default settings and returns each case's
// ratio: its median over the median of the ref samples beside it (--ref) or of ref_js_loop in its OS process.
func layoutRatios(t *testing.T, prog string, l layout, order []string) map[string]float64 {
	t.Helper()
	ratios := map[string]float64{}
	for _, names := range l.runs(order) {
		args := []string{"run", "--samples", "3", "--min-time-ns", "10000000", "--warmup-ns", "10000000"}
		if l.ref {
			args = append(args, "--ref", cases.RefCase)
		}
		text, err := exec.Command(prog, append(args, names...)...).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", prog, strings.Join(args, " "), err)
		}
		samples, refs := map[string][]float64{}, map[string][]float64{}
		for _, line := range strings.Split(string(text), "\n") {
			f := strings.Fields(line)
			if len(f) != 4 || (f[0] != "sample" && f[0] != "ref") {
				continue
			}
			ops, _ := strconv.ParseFloat(f[2], 64)
			ns, _ := strconv.ParseFloat(f[3], 64)
			if f[0] == "sample" {
				samples[f[1]] = append(samples[f[1]], ns/ops)
			} else {
				refs[f[1]] = append(refs[f[1]], ns/ops)
			}
		}
		for _, n := range names {
			ref := refs[n]
			if !l.ref {
				ref = samples[cases.RefCase]
			}
			if n != cases.RefCase {
				ratios[n] = stats.Median(samples[n]) / stats.Median(ref)
			}
		}
	}
	return ratios
}
