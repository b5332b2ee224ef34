package harness_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/check"
	"github.com/bench-bridge/bench-bridge/harness"
	"github.com/bench-bridge/bench-bridge/runner"
)

// programEnv makes the test binary the program of testProgram: check runs it as a bench program.
const programEnv = "BB_HARNESS_TEST_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(programEnv) == "1" {
		harness.Main(testProgram())
	}
	os.Exit(m.Run())
}

// testProgram is a program on the harness without an engine: its loops stay in Go, calling the host-side work that
// a crossing does (Add, the UI table), so that the records are the harness's alone. One case fails in its set-up and
// one panics there.
func testProgram() harness.Program {
	ui := &harness.UI{}
	return harness.Program{Kind: harness.Bridge, Engine: "none 0", Codec: "go-loops",
		Meta:    [][2]string{{"note", "a test program\nof two lines"}},
		Missing: []harness.Missing{{Case: "bytes_64k", Why: "no bytes here"}},
		Cases: []harness.Case{
			{Name: "ref_js_loop", Setup: func() (harness.Loop, error) {
				return harness.Loop{Run: func(n uint64) error {
					s := 0.0
					for i := range n {
						s = math.Mod(s+float64(i), harness.Mod)
					}
					harness.Sink += s
					return nil
				}}, nil
			}},
			{Name: "script_to_host_scalar", Setup: func() (harness.Loop, error) {
				return harness.Loop{Run: func(n uint64) error {
					s := 0.0
					for i := range n {
						s = harness.Add(s, float64(i))
					}
					harness.Sink += s
					return nil
				}}, nil
			}},
			{Name: "ui_ops_calls", Setup: func() (harness.Loop, error) {
				return harness.Loop{Run: func(n uint64) error {
					for f := range n {
						for k := range uint64(harness.UIFrame) {
							m := f*harness.UIFrame + k
							if err := ui.Set(float64(m&63), float64((m>>3)&7), float64(m)*0.5); err != nil {
								return err
							}
						}
					}
					return nil
				}, Close: func() { *ui = harness.UI{} }}, nil
			}},
			{Name: "error_host_to_script", Setup: func() (harness.Loop, error) {
				return harness.Loop{}, errors.New("no engine here")
			}},
			{Name: "callback", Setup: func() (harness.Loop, error) {
				panic("a panic in set-up")
			}},
		}}
}

// TestAProgramOnTheHarnessPassesCheck runs the test program through bench-bridge check: every check of protocol 2
// (list, run and its flags, --ops, --ref, --slowdown and --slowdown-steps, error records, loop, the exit statuses,
// a flush after every line).
func TestAProgramOnTheHarnessPassesCheck(t *testing.T) {
	t.Setenv(programEnv, "1")
	opts := check.Options{Samples: 2, MinTime: 5 * time.Millisecond, Warmup: 20 * time.Millisecond, Loop: 50 * time.Millisecond, Timeout: time.Minute}
	rep, err := check.Run(context.Background(), []string{os.Args[0]}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || rep.Protocol != 2 || len(rep.Cases) != 5 {
		t.Fatalf("check: protocol %d, cases %v, problems:\n%v\nnotes: %v", rep.Protocol, rep.Cases, rep.Problems, rep.Notes)
	}
}

// run runs the test program in this process and returns its output and exit status.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = harness.Run(testProgram(), args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestRunPrintsEveryRecord reads one run as bench-bridge reads it (runner.CheckLine, runner.Grammar): the header,
// a ref record before every sample, the memory record, an error record for a case that fails, one that panics and
// one the program lacks, and rss.
func TestRunPrintsEveryRecord(t *testing.T) {
	asked := []string{"script_to_host_scalar", "ui_ops_calls", "error_host_to_script", "callback", "no_such_case"}
	stdout, stderr, code := run(t, append([]string{"run", "--samples", "2", "--min-time-ns", "1000000", "--warmup-ns=0",
		"--ref", "ref_js_loop"}, asked...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	g := runner.Grammar{Want: asked, Version: 2}
	count := map[string]int{}
	for i, line := range lines[1:] {
		if err := runner.CheckLine(line); err != nil {
			t.Fatalf("line %d %q: %v", i+2, line, err)
		}
		f := strings.Fields(line)
		name := ""
		if runner.NamesCase(f[0]) {
			name = f[1]
		}
		if err := g.Next(f[0], name); err != nil {
			t.Fatalf("line %d %q: %v", i+2, line, err)
		}
		count[f[0]+" "+name]++
	}
	for _, want := range []string{"bench-bridge-protocol 2", "meta program bridge", "meta codec go-loops", "meta engine none 0",
		"meta note a test program of two lines", "meta not_implemented.bytes_64k no bytes here", "error error_host_to_script no engine here"} {
		if !slices.Contains(lines, want) {
			t.Errorf("no line %q in\n%s", want, stdout)
		}
	}
	for rec, n := range map[string]int{"sample script_to_host_scalar": 2, "ref script_to_host_scalar": 2, "memory script_to_host_scalar": 1,
		"sample ui_ops_calls": 2, "ref ui_ops_calls": 2, "error callback": 1, "error no_such_case": 1, "begin no_such_case": 0, "rss ": 1} {
		if count[rec] != n {
			t.Errorf("%d %q records, want %d:\n%s", count[rec], rec, n, stdout)
		}
	}
	if !strings.Contains(stdout, "error callback panic: a panic in set-up") {
		t.Errorf("the set-up's panic is not the case's error:\n%s", stdout)
	}
	if !strings.Contains(stdout, "memory ui_ops_calls ops=256 host_allocs=") {
		t.Errorf("the memory pass of ui_ops_calls is not 16 frames of 16 ops:\n%s", stdout)
	}
}

// TestRunFlags: --ops fixes the units (16 ops a frame for ui_ops_*), --slowdown prints what it added before
// calibrated, and bad flags exit 2 with a message, as the C harness does.
func TestRunFlags(t *testing.T) {
	stdout, _, code := run(t, "run", "--ops", "7", "--samples", "2", "--warmup-ns", "0", "ui_ops_calls")
	if code != 0 || !strings.Contains(stdout, "calibrated ui_ops_calls 112\nsample ui_ops_calls 112 ") || strings.Contains(stdout, "memory ") {
		t.Errorf("--ops 7: exit %d\n%s", code, stdout)
	}
	stdout, _, code = run(t, "run", "--slowdown", "0.5", "--samples", "1", "--min-time-ns", "2000000", "script_to_host_scalar")
	added, base, ok := slowdownRecord(stdout, "script_to_host_scalar")
	if code != 0 || !ok || !(added > 0 && base > 0) {
		t.Errorf("--slowdown 0.5: exit %d, slowdown %v of %v\n%s", code, added, base, stdout)
	}
	for _, args := range [][]string{{"run", "--samples", "0"}, {"run", "--no-such-flag"}, {"run", "--ops", "-1"},
		{"run", "--ops", "3", "--ref", "ref_js_loop"}, {"run", "--slowdown", "11"}, {"run", "--slowdown", "0.1", "--slowdown-steps", "2"},
		{"run", "--samples"}, {"loop", "no_such_case", "1"}, {"loop", "ref_js_loop", "0"}, {"loop", "ref_js_loop", "1", "--itimer", "f"},
		{"list", "x"}, {"frobnicate"}, {}} {
		if _, stderr, code := run(t, args...); code != 2 || stderr == "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, stderr)
		}
	}
	if stdout, _, code := run(t, "list"); code != 0 || stdout != "ref_js_loop\nscript_to_host_scalar\nui_ops_calls\nerror_host_to_script\ncallback\n" {
		t.Errorf("list: exit %d\n%s", code, stdout)
	}
	stdout, _, code = run(t, "loop", "script_to_host_scalar", "0.02")
	if f := strings.Fields(stdout); code != 0 || len(f) != 4 || f[0] != "loop" || f[1] != "script_to_host_scalar" {
		t.Errorf("loop: exit %d\n%s", code, stdout)
	}
}

// slowdownRecord reads the slowdown record of a case.
func slowdownRecord(out, name string) (added, base float64, ok bool) {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "slowdown" && f[1] == name {
			a, err1 := strconv.ParseFloat(f[2], 64)
			b, err2 := strconv.ParseFloat(f[3], 64)
			return a, b, err1 == nil && err2 == nil
		}
	}
	return 0, 0, false
}

// TestJSCasesAreTheCatalogue: a program over a JavaScript engine gets every case of the catalogue from JSCases, in
// its order, each with the set-up and loop cases.def names; none is missing.
func TestJSCasesAreTheCatalogue(t *testing.T) {
	cs, missing := harness.JSCases(func(cases.Case, string) (harness.JS, error) { return nil, errors.New("no engine") })
	if len(missing) > 0 {
		t.Errorf("missing: %+v", missing)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, cases.Names()) {
		t.Errorf("JSCases has %v, the catalogue %v", names, cases.Names())
	}
}

// TestHostWorkIsTheHarnesses: the host's text is the scripts' mkstr, and the host-side work computes what
// cases/c/harness_host.c does.
func TestHostWorkIsTheHarnesses(t *testing.T) {
	for _, n := range []int{0, 16, 1024, 65536} {
		if s := harness.Text(n); len(s) != n || !utf8.ValidString(s) {
			t.Errorf("Text(%d) is %d bytes, valid UTF-8 %v", n, len(s), utf8.ValidString(s))
		}
	}
	if got := harness.Text(16); got != "ab \u00e9\u20ac cd aaaa" {
		t.Errorf("Text(16) = %q", got)
	}
	if got := harness.Upper(harness.Text(16)); got != "AB \u00e9\u20ac CD AAAA" {
		t.Errorf("Upper = %q", got)
	}
	in := harness.ObjSample(41)
	if got := harness.ObjHost(&in); got != (harness.ObjOut{ID: 42, OK: true, X: 3.75}) {
		t.Errorf("ObjHost = %+v", got)
	}
	if got := harness.FailMessage(12); got != "host_fail: refused 12" {
		t.Errorf("FailMessage = %q", got)
	}
	if got := harness.Add(1000000, 10); got != 7 {
		t.Errorf("Add = %v", got)
	}
	var ui harness.UI
	if err := ui.Apply([]float64{63, 7, 1.5}); err != nil || ui.Props[63][7] != 1.5 || ui.Set(64, 0, 1) == nil || ui.SetNamed(0, "nope", 1) == nil {
		t.Errorf("the UI table: %v", err)
	}
}
