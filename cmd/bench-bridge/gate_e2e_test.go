package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/gate"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// gateCases are the crossings that BB_EXTRA_WORK makes about 25% dearer, one of each direction and the callback.
var gateCases = []string{"script_to_host_scalar", "host_to_script_scalar", "callback"}

// gateJSON runs gate with --format json and returns its exit status and report.
func gateJSON(t *testing.T, args ...string) (int, gate.Report, []string) {
	t.Helper()
	stdout, stderr, code := run(t, append([]string{"gate", "--format", "json"}, args...)...)
	var out struct {
		gate.Report
		Regressions []string `json:"regressions"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("gate %s: exit %d, output is not json: %v\n%s\n%s", strings.Join(args, " "), code, err, stdout, stderr)
	}
	return code, out.Report, out.Regressions
}

// logResult records what the gate saw, for the reader of the test log.
func logResult(t *testing.T, what string, r gate.Report) {
	t.Helper()
	for _, res := range r.Results {
		for _, c := range res.Cases {
			line := what + ": " + c.Case + " " + string(c.Verdict)
			if c.Rerun != nil {
				line += " (first pass flagged it; rerun " + string(c.Rerun.Verdict) + ")"
			}
			t.Logf("%s, ratio to ref %.4g -> %.4g (%+.1f%%)", line, c.Baseline, c.Current, 100*c.Change)
		}
	}
}

// TestGateAAAndAB is the proof that the gate works on this machine: the same program measured several times is never
// flagged (A/A), and the bridge built with BB_EXTRA_WORK, a fixed amount of real work per crossing of about 25%, is
// flagged both by time and by instruction counts (A/B).
func TestGateAAAndAB(t *testing.T) {
	testenv.Require(t, "cc", "apt-get install gcc (scripts/setup does it)")
	testenv.Require(t, "valgrind", "apt-get install valgrind (scripts/setup does it)")
	dir := t.TempDir()
	measure := func(name string, extra ...string) string {
		out := filepath.Join(dir, name+".json")
		args := append([]string{localName(), "--cases", strings.Join(gateCases, ","), "--samples", "10", "--min-time", "10ms",
			"--out", out}, extra...)
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("bench-bridge %s: exit %d\n%s\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return out
	}
	// The timed runs go back to back, before any callgrind run: the first run builds the programs and is thrown away,
	// so that no run is timed while the machine is still busy with compilers or valgrind (both leave it noisier for a
	// while on these virtual machines, by 10 to 20% for allocation-heavy cases).
	measure("warm-up")
	a1, a2, a3 := measure("a1"), measure("a2"), measure("a3")
	b := measure("b", "--define", "BB_EXTRA_WORK")
	i1 := measure("i1", "--metric", "instructions")
	i2 := measure("i2", "--metric", "instructions")
	ib := measure("ib", "--metric", "instructions", "--define", "BB_EXTRA_WORK")
	if ab := readArtifact(t, ib); !slices.Equal(ab.Settings.Defines, []string{"BB_EXTRA_WORK"}) || !strings.Contains(ab.Device.CFlags, "-DBB_EXTRA_WORK") {
		t.Fatalf("the A/B artifact does not record its build: defines %v, cflags %q", ab.Settings.Defines, ab.Device.CFlags)
	}

	t.Run("A/A time", func(t *testing.T) {
		for _, pair := range [][2]string{{a1, a2}, {a2, a3}, {a1, a3}} {
			code, r, reg := gateJSON(t, "--confirm", pair[0], pair[1])
			logResult(t, filepath.Base(pair[0])+" vs "+filepath.Base(pair[1]), r)
			if code != 0 || len(reg) > 0 {
				t.Errorf("A/A %s vs %s: exit %d, regressions %v", pair[0], pair[1], code, reg)
			}
		}
	})
	t.Run("A/A instructions", func(t *testing.T) {
		code, r, reg := gateJSON(t, "--metric", "instructions", i1, i2)
		if code != 0 || len(reg) > 0 {
			t.Fatalf("exit %d, regressions %v", code, reg)
		}
		for _, c := range r.Results[0].Cases {
			// The same binary counts the same, to within 0.01%.
			if c.Change > 1e-4 || c.Change < -1e-4 {
				t.Errorf("%s: instruction ratio moved %+.4f%% between two runs of the same binary", c.Case, 100*c.Change)
			}
		}
	})
	t.Run("A/B time", func(t *testing.T) {
		code, r, reg := gateJSON(t, "--confirm", a1, b)
		logResult(t, "a1 vs b", r)
		if code != exitRegressed || !slices.Contains(reg, "json linux: script_to_host_scalar") && !slices.Contains(reg, "json mac: script_to_host_scalar") {
			t.Errorf("A/B by time: exit %d, regressions %v; want 3 and script_to_host_scalar", code, reg)
		}
	})
	t.Run("A/B instructions", func(t *testing.T) {
		code, r, reg := gateJSON(t, "--metric", "instructions", i1, ib)
		logResult(t, "i1 vs ib", r)
		if code != exitRegressed || len(reg) != len(gateCases) {
			t.Fatalf("A/B by instructions: exit %d, regressions %v; want every case", code, reg)
		}
		for _, c := range r.Results[0].Cases {
			if c.Change < 0.15 || c.Change > 0.40 {
				t.Errorf("%s: %+.1f%% more instructions, want about 25%%", c.Case, 100*c.Change)
			}
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
	}
	for _, tt := range tests {
		_, stderr, code := run(t, tt.args...)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("bench-bridge %s: exit %d, stderr %q; want 1 and %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
	}
}
