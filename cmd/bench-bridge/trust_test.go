package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
)

// TestMeasureTrust measures the trust goals on this machine and prints them as markdown (docs/method.md
// #the-trust-goals-measured has the table and how to read it). It takes about ten minutes and measures time, so it runs only when
// BB_MEASURE_TRUST=1 (scripts/measure-trust sets it); BB_MEASURE_TRUST_OUT names a file for the table. It fails only
// when a step cannot run: the numbers are what it reports, not what it asserts. BB_MEASURE_TRUST_DIR keeps the
// artifacts in that directory.
func TestMeasureTrust(t *testing.T) {
	if os.Getenv("BB_MEASURE_TRUST") != "1" {
		t.Skip("a measurement of about ten minutes: run scripts/measure-trust (BB_MEASURE_TRUST=1)")
	}
	dir := os.Getenv("BB_MEASURE_TRUST_DIR") // keeps the artifacts for a closer look
	if dir == "" {
		dir = t.TempDir()
	}
	var table strings.Builder
	row := func(what, got, goal string) { fmt.Fprintf(&table, "| %s | %s | %s |\n", what, got, goal) }
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&table, "Measured %s, load average at the start %s.\n\n| what | measured | goal |\n|---|---|---|\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(strings.Fields(string(load))[:3], " "))

	// floor linux + linux with the default settings, 5 times, after a run that builds the programs.
	mustRun(t, "floor", localName(), "--out", filepath.Join(dir, "warm-floor.json"))
	mustRun(t, localName(), "--out", filepath.Join(dir, "warm-linux.json"))
	var floors, bridges []*artifact.Artifact
	var pairTimes []float64
	for i := range 5 {
		start := time.Now()
		f, b := filepath.Join(dir, fmt.Sprintf("floor-%d.json", i)), filepath.Join(dir, fmt.Sprintf("linux-%d.json", i))
		mustRun(t, "floor", localName(), "--out", f)
		mustRun(t, localName(), "--out", b)
		pairTimes = append(pairTimes, time.Since(start).Seconds())
		floors, bridges = append(floors, readArtifact(t, f)), append(bridges, readArtifact(t, b))
	}
	rawInterval := func(c *artifact.Case) (float64, float64, float64, bool) {
		return c.MedianNs, c.PILowNs, c.PIHighNs, true
	}
	ratioInterval := func(c *artifact.Case) (float64, float64, float64, bool) {
		if c.RatioToRef == nil || c.RatioPILow == nil || c.Name == "ref_js_loop" {
			return 0, 0, 0, false
		}
		return *c.RatioToRef, *c.RatioPILow, *c.RatioPIHigh, true
	}
	inF, nF := coverage(floors, rawInterval)
	inB, nB := coverage(bridges, rawInterval)
	row("another run's median inside a run's 95% interval, 5 runs each of `floor linux` and `linux`",
		fmt.Sprintf("%.0f%% (%d of %d; floor %d of %d, linux %d of %d)", 100*float64(inF+inB)/float64(nF+nB), inF+inB, nF+nB, inF, nF, inB, nB),
		"at least 80%")
	inF, nF = coverage(floors, ratioInterval)
	inB, nB = coverage(bridges, ratioInterval)
	row("the same for ratio_to_ref and its interval",
		fmt.Sprintf("%.0f%% (%d of %d; floor %d of %d, linux %d of %d)", 100*float64(inF+inB)/float64(nF+nB), inF+inB, nF+nB, inF, nF, inB, nB),
		"-")
	ratioWorst, ratioMedian := spread(floors, bridges, func(c *artifact.Case) float64 { return *c.RatioToRef })
	rawWorst, rawMedian := spread(floors, bridges, func(c *artifact.Case) float64 { return c.MedianNs })
	row("spread (max/min - 1) of ratio_to_ref over those 5 runs, every crossing case",
		fmt.Sprintf("at most %s, median %.1f%% (raw ns/op: at most %s, median %.1f%%)", ratioWorst, ratioMedian, rawWorst, rawMedian),
		"at most 5%")

	// compare with and without the slowdown.
	compareRuns := func(b string) (int, []float64) {
		flagged := 0
		var secs []float64
		for i := range 5 {
			start := time.Now()
			_, stderr, code := run(t, "compare", localName(), "json", b, "--cases", "script_to_host_scalar", "--gate", "-q",
				"--out", filepath.Join(dir, fmt.Sprintf("cmp-%s-%d", strings.ReplaceAll(b, ":", "-"), i)))
			secs = append(secs, time.Since(start).Seconds())
			switch code {
			case exitRegressed:
				flagged++
			case 0:
			default:
				t.Fatalf("compare json %s: exit %d\n%s", b, code, stderr)
			}
		}
		return flagged, secs
	}
	ab, abSecs := compareRuns("json:slowdown=0.10")
	aa, aaSecs := compareRuns("json")
	row("a 10% slowdown of script_to_host_scalar (same binary, switched at run time) found by `compare linux json json:slowdown=0.10 --cases script_to_host_scalar --gate`",
		fmt.Sprintf("%d runs in 5", ab), "5 runs in 5")
	row("the same with no slowdown (A against A)", fmt.Sprintf("flagged in %d runs of 5", aa), "flagged in 0 runs of 5")
	all := append(abSecs, aaSecs...)
	row("one such compare", fmt.Sprintf("%.1f s (median of 10; at most %.1f s)", median(all), slices.Max(all)), "at most 60 s")
	row("`floor linux` plus `linux`, default settings, warm", fmt.Sprintf("%.1f s (median of 5; at most %.1f s)", median(pairTimes), slices.Max(pairTimes)),
		"at most 60 s")

	// The floor against Google Benchmark timing the same code, alternately, in the same minute.
	gb := buildGoogleBenchmark(t, dir)
	// Like with like: each tool's median, and each tool's least (bench-bridge's least sample, Google Benchmark's
	// least repetition), since the machine's slow spells fall differently on a run of 10 processes and on one process
	// of a second.
	var medians, leasts []float64
	for i := range 3 {
		f := filepath.Join(dir, fmt.Sprintf("gb-floor-%d.json", i))
		mustRun(t, "floor", localName(), "--cases", "script_to_host_scalar", "--out", f)
		c := readArtifact(t, f).Case("script_to_host_scalar")
		theirMedian, theirLeast := googleBenchmarkNs(t, gb, "BM_script_to_host_scalar")
		t.Logf("script_to_host_scalar: bench-bridge floor median %.2f ns, least %.2f ns; Google Benchmark median %.2f ns, least %.2f ns",
			c.MedianNs, slices.Min(c.SamplesNs), theirMedian, theirLeast)
		medians, leasts = append(medians, c.MedianNs/theirMedian), append(leasts, slices.Min(c.SamplesNs)/theirLeast)
	}
	row("floor script_to_host_scalar against Google Benchmark (libbenchmark-dev) timing the same JavaScript and host function in the same minute",
		fmt.Sprintf("least against least %.2fx (median of 3: %s); median against median %.2fx (%s)",
			median(leasts), joinFloats(leasts, "%.2fx"), median(medians), joinFloats(medians, "%.2fx")), "within 15%")

	t.Log("\n" + table.String())
	if out := os.Getenv("BB_MEASURE_TRUST_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustRun(t *testing.T, args ...string) {
	t.Helper()
	stdout, stderr, code := run(t, append(args, "-q")...)
	if code != 0 {
		t.Fatalf("bench-bridge %s: exit %d\n%s\n%s", strings.Join(args, " "), code, stdout, stderr)
	}
}

// coverage counts, over every case and every ordered pair of runs, how often one run's value falls inside the
// other's interval; interval returns a case's value and interval, false for a case that has none.
func coverage(runs []*artifact.Artifact, interval func(*artifact.Case) (v, lo, hi float64, ok bool)) (in, n int) {
	for i, a := range runs {
		for j, b := range runs {
			if i == j {
				continue
			}
			for _, c := range a.Cases {
				o := b.Case(c.Name)
				if o == nil {
					continue
				}
				_, lo, hi, ok := interval(&c)
				v, _, _, oOK := interval(o)
				if ok && oOK {
					n++
					if v >= lo && v <= hi {
						in++
					}
				}
			}
		}
	}
	return in, n
}

// spread is, over the crossing cases of each program's runs, the largest max/min - 1 of value (naming the case) and
// the median of them.
func spread(floors, bridges []*artifact.Artifact, value func(*artifact.Case) float64) (string, float64) {
	var all []float64
	worst, what := -1.0, ""
	for _, runs := range [][]*artifact.Artifact{floors, bridges} {
		for _, c := range runs[0].Cases {
			if !c.Crossing {
				continue
			}
			var vs []float64
			for _, a := range runs {
				if o := a.Case(c.Name); o != nil && o.RatioToRef != nil {
					vs = append(vs, value(o))
				}
			}
			s := slices.Max(vs)/slices.Min(vs) - 1
			all = append(all, s)
			if s > worst {
				worst, what = s, runs[0].Label()+" "+c.Name
			}
		}
	}
	return fmt.Sprintf("%.1f%% (%s)", 100*worst, what), 100 * median(all)
}

func joinFloats(xs []float64, format string) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf(format, x))
	}
	return strings.Join(parts, ", ")
}

// buildGoogleBenchmark links testdata/gbench_floor.cc with the floor, the harness and the QuickJS library that
// bench-bridge builds, against Debian's libbenchmark-dev.
func buildGoogleBenchmark(t *testing.T, dir string) string {
	t.Helper()
	if _, err := os.Stat("/usr/include/benchmark/benchmark.h"); err != nil {
		t.Fatal("no Google Benchmark: apt-get install libbenchmark-dev g++")
	}
	ctx := context.Background()
	tc := build.Host()
	src, err := build.QuickJSSource(ctx, "", os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := build.BuildQuickJS(ctx, tc, src, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(slices.Clone(benchbridge.CommonSources), benchbridge.Floor) {
		data, err := benchbridge.CSources.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cc := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	flags := append(slices.Clone(tc.CFlags), "-I", lib.Src, "-I", dir)
	harnessArgs := append(slices.Clone(flags), "-Dmain=bb_harness_main", "-c") // one .o per harness file, in dir
	objs := []string{"floor.o"}
	for _, f := range benchbridge.HarnessSources {
		harnessArgs = append(harnessArgs, filepath.Base(f))
		objs = append(objs, strings.TrimSuffix(filepath.Base(f), ".c")+".o")
	}
	cc(tc.CC, harnessArgs...)
	cc(tc.CC, append(slices.Clone(flags), "-c", "floor.c", "-o", "floor.o")...)
	gbSrc, _ := filepath.Abs("testdata/gbench_floor.cc")
	args := append(append([]string{"-O2", "-std=c++17", "-I", lib.Src, "-I", dir, gbSrc}, objs...), lib.Objects...)
	cc("g++", append(args, "-lbenchmark", "-lpthread", "-lm", "-ldl", "-o", "gbench")...)
	return filepath.Join(dir, "gbench")
}

// googleBenchmarkNs runs one benchmark of gb, 5 repetitions, and returns the median and the least ns per op.
func googleBenchmarkNs(t *testing.T, gb, name string) (float64, float64) {
	t.Helper()
	out, err := exec.Command(gb, "--benchmark_filter=^"+name+"(/|$)", "--benchmark_repetitions=5",
		"--benchmark_min_time=0.2", "--benchmark_format=json").Output()
	if err != nil {
		t.Fatalf("%s: %v", gb, err)
	}
	var res struct {
		Benchmarks []struct {
			RunType       string  `json:"run_type"`
			AggregateName string  `json:"aggregate_name"`
			NsPerOp       float64 `json:"ns_per_op"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s: %v\n%s", gb, err, out)
	}
	med, least := math.NaN(), math.Inf(1)
	for _, b := range res.Benchmarks {
		ns := b.NsPerOp * 1e9 // the counter is seconds per op
		switch {
		case b.RunType == "aggregate" && b.AggregateName == "median":
			med = ns
		case b.RunType == "iteration":
			least = min(least, ns)
		}
	}
	if math.IsNaN(med) || math.IsInf(least, 1) {
		t.Fatalf("%s: no median or no repetitions in\n%s", gb, out)
	}
	return med, least
}
