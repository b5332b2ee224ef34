package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/gate"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/trend"
)

// gateCases are crossings of each direction and the callback: the slowdown hook makes every one of them dearer.
var gateCases = []string{"script_to_host_scalar", "host_to_script_scalar", "callback"}

// gateJSON runs gate or compare with --format json and returns its exit status and report.
func gateJSON(t *testing.T, args ...string) (int, gate.Report, []string) {
	t.Helper()
	stdout, stderr, code := run(t, append(args, "--format", "json")...)
	type report struct {
		gate.Report
		Regressions []string `json:"regressions"`
	}
	// gate prints the report; compare one object that holds the programs' table and the report, as "paired".
	var out struct {
		report
		Paired *report `json:"paired"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%s: exit %d, no json report (%v)\n%s\n%s", strings.Join(args, " "), code, err, stdout, stderr)
	}
	if out.Paired != nil {
		out.report = *out.Paired
	}
	return code, out.Report, out.Regressions
}

// logResult records what the gate saw, for the reader of the test log.
func logResult(t *testing.T, what string, r gate.Report) {
	t.Helper()
	for _, res := range r.Results {
		for _, c := range res.Cases {
			line := what + ": " + res.Label + ": " + c.Case + " " + string(c.Verdict)
			if c.Rerun != nil {
				line += " (first pass flagged it; rerun " + string(c.Rerun.Verdict) + ")"
			}
			t.Logf("%s, ratio to ref %.4g -> %.4g (%+.1f%%)", line, c.Baseline, c.Current, 100*c.Change)
		}
	}
}

// abShare is the slowdown of the A/B proof: large enough that the noise of a shared machine cannot hide it.
const abShare = 0.25

// confirmShare is the slowdown of the gate --confirm proof. Its first pass compares runs of separate sessions, whose
// ratios move by 10-20% on a loaded machine and by up to 1.5x in a slow spell (docs/gate.md): twice the crossing's
// cost still clears the gate's 10% minimum effect across them. The gate's sensitivity is the interleaved compare's
// proof; this one proves that a flagged case is rerun beside the baseline's program and still fails.
const confirmShare = 1.0

// compareRoundsForProof are the rounds of the proof's compares: a sign test over 30 pairs reaches the gate's alpha
// of 0.05 with up to nine pairs against the rest, so a slowdown is flagged even on a machine busy enough to turn a
// pair in five, and 30 rounds take seconds.
const compareRoundsForProof = "30"

// TestGateAAAndAB is the proof that the gate works on this machine, whatever its CPU: the same program measured
// several times is never flagged (A/A), and the same binary told to add busy work worth abShare of each crossing,
// calibrated at start-up on this machine, is flagged (A/B), by time and by instruction counts. The tests assert on
// the share the program says it applied, never on how fast one kind of work is on this CPU.
func TestGateAAAndAB(t *testing.T) {
	requireCC(t)
	testenv.Require(t, "valgrind", "apt-get install valgrind (scripts/setup does it)")
	dir := t.TempDir()
	caseList := strings.Join(gateCases, ",")
	// Five processes of five samples a side: the gate's U test across sessions can reach its alpha with them.
	sessions := []string{"--runs", "5", "--samples", "5", "--min-time", "10ms"}
	measure := func(name string, args ...string) string {
		out := filepath.Join(dir, name+".json")
		args = append([]string{localName(), "--out", out}, args...)
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("bench-bridge %s: exit %d\n%s\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return out
	}
	// The timed runs go back to back, before any callgrind run: a first, untimed run builds the programs, so that no
	// run is timed while the machine is still busy with compilers or valgrind.
	measure("warm-up", "--cases", caseList, "--runs", "1", "--samples", "1", "--min-time", "1ms")
	timed := append([]string{"--cases", caseList}, sessions...)
	a1, a2, a3 := measure("a1", timed...), measure("a2", timed...), measure("a3", timed...)

	t.Run("A/A time", func(t *testing.T) {
		for _, pair := range [][2]string{{a1, a2}, {a2, a3}, {a1, a3}} {
			code, r, reg := gateJSON(t, "gate", "--confirm", pair[0], pair[1])
			logResult(t, filepath.Base(pair[0])+" vs "+filepath.Base(pair[1]), r)
			if code != 0 || len(reg) > 0 {
				t.Errorf("A/A %s vs %s: exit %d, regressions %v", pair[0], pair[1], code, reg)
			}
		}
	})
	// One compare proves A/A and A/B at once: three programs a round, side by side as the paired test wants them, the
	// json bridge (A), the same program again (A/A) and the same binary told to add abShare of busy work (A/B), over
	// the gate's cases. What is paired is each process's ratio to the reference loop measured beside each case, and 30
	// pairs judge it: short samples serve it as well as long ones, and the three programs share the rounds.
	t.Run("A/A and A/B compare", func(t *testing.T) {
		out := filepath.Join(dir, "compare")
		code, r, reg := gateJSON(t, "compare", localName(), "json", "json", fmt.Sprintf("json:slowdown=%v", abShare), "--cases", caseList,
			"--runs", compareRoundsForProof, "--min-time", "2ms", "--warmup", "1ms", "--gate", "--out", out)
		logResult(t, "compare", r)
		if len(r.Results) != 2 {
			t.Fatalf("compare of three programs: %d results, want A/A and A/B", len(r.Results))
		}
		slowed := fmt.Sprintf("json %s slowdown=%v", localName(), abShare)
		for _, res := range r.Results {
			for _, n := range res.Notes {
				if strings.Contains(n.Text, "cannot reach alpha") {
					t.Fatalf("compare of %s rounds proves nothing: %s", compareRoundsForProof, n)
				}
			}
			ab := res.Label == slowed
			for _, c := range res.Cases {
				if regressed := c.Verdict == analysis.Regressed; regressed != ab {
					t.Errorf("%s %s: %s (%+.1f%%); want regressed only with the busy work added", res.Label, c.Case, c.Verdict, 100*c.Change)
				}
			}
		}
		if code != exitRegressed || len(reg) != len(gateCases) || slices.ContainsFunc(reg, func(s string) bool { return !strings.HasPrefix(s, slowed+": ") }) {
			t.Errorf("A/A and A/B compare: exit %d, regressions %v; want 3 and every case of %s alone", code, reg, slowed)
		}
		b := readArtifact(t, filepath.Join(out, "c-"+localName()+"-slowdown0.25.json"))
		if b.Settings.Slowdown != abShare || b.Session.ID == "" || b.Session.ID != readArtifact(t, filepath.Join(out, "a-"+localName()+".json")).Session.ID {
			t.Fatalf("the B artifact: slowdown %v, session %+v", b.Settings.Slowdown, b.Session)
		}
		for _, res := range r.Results {
			if res.Label != slowed {
				continue
			}
			for _, c := range res.Cases {
				// The share the program applied, as it calibrated it on this machine, and what the session measured.
				var shares []float64
				for _, p := range b.Case(c.Case).Processes {
					shares = append(shares, p.SlowdownNs/p.SlowdownBaseNs)
				}
				applied := median(shares)
				if math.Abs(applied-abShare) > 0.05 {
					t.Errorf("%s: the program applied %.3f of the crossing, asked for %v", c.Case, applied, abShare)
				}
				if math.Abs(c.Change-applied) > applied/2 {
					t.Errorf("%s: measured %+.1f%% with %.1f%% of busy work added", c.Case, 100*c.Change, 100*applied)
				}
			}
		}
	})
	t.Run("A/B gate --confirm", func(t *testing.T) {
		// A baseline measured just before b: runs minutes apart differ more than runs seconds apart. One case, with
		// one short sample a process: the rerun beside the baseline's program (compare's 40 rounds of each flagged
		// case, with the artifacts' samples) is what this proves, and the compare above proves every direction.
		//
		// One more pair when the first pass flags nothing: a baseline measured in a slow spell of this machine may
		// still hide the slowdown from a test across sessions.
		one := []string{"--cases", gateCases[0], "--runs", "5", "--samples", "1", "--min-time", "2ms", "--warmup", "1ms"}
		var code int
		var r gate.Report
		var reg []string
		for attempt := range 2 {
			base := measure(fmt.Sprintf("base%d", attempt), one...)
			b := measure(fmt.Sprintf("b%d", attempt), append(one, "--slowdown", fmt.Sprint(confirmShare))...)
			code, r, reg = gateJSON(t, "gate", "--confirm", base, b)
			logResult(t, fmt.Sprintf("base vs b, pair %d", attempt), r)
			if code != 0 {
				break
			}
		}
		if code != exitRegressed || len(reg) != 1 || !strings.HasPrefix(reg[0], fmt.Sprintf("json %s slowdown=%v: ", localName(), confirmShare)) {
			t.Errorf("A/B by gate --confirm: exit %d, regressions %v; want 3 and the case confirmed", code, reg)
		}
		if res := r.Results[0]; res.Confirmation == "" || slices.ContainsFunc(res.Notes, func(n analysis.Warning) bool { return strings.Contains(n.Text, "reran alone") }) {
			t.Errorf("the confirmation did not rerun beside the baseline's program: %s, notes %v", res.Confirmation, res.Notes)
		}
	})

	// Instruction counts come from callgrind runs of a fixed op count, whatever --runs and --samples say and whatever
	// else runs: the three counted runs go at once, as processes of their own. Each case takes seconds under
	// callgrind, so one case, as the confirm's proof: the compare proves every direction.
	counted := []string{"--cases", gateCases[0], "--metric", "instructions", "--runs", "1", "--samples", "1", "--min-time", "1ms"}
	i1, i2, ib := filepath.Join(dir, "i1.json"), filepath.Join(dir, "i2.json"), filepath.Join(dir, "ib.json")
	bin := cli(t)
	var counting sync.WaitGroup
	failed := make([]string, 3)
	for i, args := range [][]string{{"--out", i1}, {"--out", i2}, {"--out", ib, "--slowdown-steps", "64"}} {
		args = append(append([]string{localName()}, counted...), args...)
		counting.Go(func() {
			if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				failed[i] = fmt.Sprintf("bench-bridge %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		})
	}
	counting.Wait()
	if msg := strings.Join(failed, ""); msg != "" {
		t.Fatal(msg)
	}
	t.Run("A/A instructions", func(t *testing.T) {
		code, r, reg := gateJSON(t, "gate", "--metric", "instructions", i1, i2)
		if code != 0 || len(reg) > 0 {
			t.Fatalf("exit %d, regressions %v", code, reg)
		}
		for _, c := range r.Results[0].Cases {
			// The same binary counts the same, to within the history's tolerance (trend.DefaultOptions.ExactTolerance,
			// 0.05%): since the loops are ES5, ref_js_loop costs about 206 instructions an op, each count moves by up
			// to 0.016% and a ratio of two by up to 0.021% (six runs, 2026-12-07); at 0.02% this failed once.
			if tol := trend.DefaultOptions.ExactTolerance; c.Change > tol || c.Change < -tol {
				t.Errorf("%s: instruction ratio moved %+.4f%% between two runs of the same binary", c.Case, 100*c.Change)
			}
		}
	})
	t.Run("A/B instructions", func(t *testing.T) {
		if ab := readArtifact(t, ib); ab.Settings.SlowdownSteps != 64 {
			t.Fatalf("the A/B artifact does not record its slowdown: %+v", ab.Settings)
		}
		code, r, reg := gateJSON(t, "gate", "--metric", "instructions", i1, ib)
		logResult(t, "i1 vs ib", r)
		if code != exitRegressed || len(reg) != 1 {
			t.Fatalf("A/B by instructions: exit %d, regressions %v; want the case", code, reg)
		}
	})
	t.Run("text and markdown", func(t *testing.T) {
		stdout, stderr, code := run(t, "gate", "--metric", "instructions", "--format", "markdown", i1, ib)
		if code != exitRegressed || !strings.Contains(stdout, "**REGRESSED**") || !strings.Contains(stderr, "bench-bridge: error: regression:") {
			t.Errorf("markdown: exit %d\n%s\n%s", code, stdout, stderr)
		}
		stdout, _, code = run(t, "gate", "--metric", "instructions", i1, i2)
		if code != 0 || !strings.Contains(stdout, "gate: ok, nothing regressed") {
			t.Errorf("text: exit %d\n%s", code, stdout)
		}
	})
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func TestGateRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"gate", "testdata-none.json", "x.json"}, "baseline: stat testdata-none.json"},
		{[]string{"gate", "--format", "yaml", "a", "b"}, `--format "yaml"`},
		{[]string{"gate", "--metric", "cycles", "a", "b"}, `--metric "cycles"`},
		{[]string{"gate", dir, dir}, "no artifacts"},
		{[]string{"gate", "only-one.json"}, "accepts 2 arg(s)"},
		{[]string{"compare", "linux", "json"}, "requires at least 3 arg(s)"},
		{[]string{"compare", "linux", "json", "yaml"}, `program "yaml": want one of floor, json, fast, binary`},
		{[]string{"compare", "linux", "json", "json:slowdown=-1"}, "slowdown=-1: want a share between 0 and 10"},
		{[]string{"compare", "linux", "json", "json:speed=2"}, `unknown option "speed"`},
		{[]string{"compare", "linux", "json", "fast", "--slowdown", "0.1"}, "--slowdown does not apply to compare"},
		{[]string{"compare", "linux", "json", "fast", "--alpha", "NaN"}, "--alpha NaN"},
		{[]string{localName(), "--runs", "0"}, "--runs must be at least 1"},
		{[]string{localName(), "--slowdown", "NaN"}, "--slowdown NaN"},
	}
	for _, tt := range tests {
		_, stderr, code := run(t, tt.args...)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("bench-bridge %s: exit %d, stderr %q; want 1 and %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
	}
}
