package runner

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/targets"
)

func localTarget(t *testing.T) targets.Target {
	t.Helper()
	name := map[string]string{"linux": "linux", "darwin": "mac"}[runtime.GOOS]
	l, err := targets.NewLocal(name, targets.Spec{Kind: "local"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func faultyOptions(cases ...string) Options {
	o := DefaultOptions()
	o.Cases, o.Stall, o.Runs = cases, 2*time.Second, 1
	return o
}

func failure(raw *Raw, name string) *artifact.Failure {
	for i := range raw.Failures {
		if raw.Failures[i].Name == name {
			return &raw.Failures[i]
		}
	}
	return nil
}

func TestMeasureSurvivesCrashHangAndErrors(t *testing.T) {
	prog, _ := filepath.Abs("testdata/faulty.sh")
	raw, err := measure(context.Background(), localTarget(t), prog, faultyOptions("a", "crash", "b", "hang", "fails", "c"))
	if err != nil {
		t.Fatal(err)
	}
	var measured []string
	for _, c := range raw.Processes[0].Cases {
		measured = append(measured, c.Name)
	}
	if got := strings.Join(measured, ","); got != "a,b,c" {
		t.Fatalf("measured %s, want a,b,c: the cases after a crash or a hang must still run", got)
	}
	crash := failure(raw, "crash")
	if crash == nil || !strings.Contains(crash.Reason, "SIGSEGV") || !strings.Contains(crash.StderrTail, "about to crash") {
		t.Errorf("crash failure = %+v, want the signal and the stderr tail", crash)
	}
	if hang := failure(raw, "hang"); hang == nil || !strings.Contains(hang.Reason, "printed nothing") {
		t.Errorf("hang failure = %+v, want it killed for stalling", hang)
	}
	if f := failure(raw, "fails"); f == nil || f.Reason != "TypeError: boom" {
		t.Errorf("clean error = %+v, want the program's message", f)
	}
	if p := raw.Processes[0]; p.TimerOverheadNs != 20 || p.Cases[0].Iterations != 1000 || len(p.Cases[0].Ns) != 3 {
		t.Errorf("raw = %+v", raw)
	}
}

// TestMeasureRecordsOutputOutsideTheProtocol: a line outside the protocol fails its case, with the line's number and
// text, and the cases after it run in a new process.
func TestMeasureRecordsOutputOutsideTheProtocol(t *testing.T) {
	prog, _ := filepath.Abs("testdata/faulty.sh")
	raw, err := measure(context.Background(), localTarget(t), prog, faultyOptions("a", "garbage", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if cs := raw.Processes[0].Cases; len(cs) != 2 || cs[0].Name != "a" || cs[1].Name != "b" {
		t.Fatalf("want a and b measured, got %+v", cs)
	}
	f := failure(raw, "garbage")
	if f == nil || !strings.Contains(f.Reason, `line 11: unknown record "hello"`) || !strings.Contains(f.Reason, `"hello there"`) {
		t.Fatalf("garbage failure = %+v, want the line's number and text", f)
	}
}

// TestMeasureKeepsTheSamplesOfADyingCase: the samples a program printed before it died are kept, marked partial,
// and the case is a failure too.
func TestMeasureKeepsTheSamplesOfADyingCase(t *testing.T) {
	prog, _ := filepath.Abs("testdata/faulty.sh")
	raw, err := measure(context.Background(), localTarget(t), prog, faultyOptions("a", "dies", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if cs := raw.cases(); len(cs) != 3 || cs[1].Name != "dies" || !cs[1].Partial || len(cs[1].Ns) != 2 || cs[2].Name != "b" {
		t.Fatalf("cases %+v, want dies kept with its 2 samples, partial, and b after it", cs)
	}
	if f := failure(raw, "dies"); f == nil || !strings.Contains(f.Reason, "SIGSEGV") {
		t.Fatalf("dies failure = %+v", f)
	}
	a := &artifact.Artifact{}
	Assemble(a, raw, []string{"a", "dies", "b"})
	if a.Complete || !a.Case("dies").Partial || a.Case("a").Partial {
		t.Fatalf("artifact: complete %v, cases %+v", a.Complete, a.Cases)
	}
}

// TestMeasureKeepsWhatAProgramMeasuredBeforeItDiedAtExit: a program that dies after its last case keeps its cases,
// fails none, and its artifact warns of the crash.
func TestMeasureKeepsWhatAProgramMeasuredBeforeItDiedAtExit(t *testing.T) {
	prog, _ := filepath.Abs("testdata/faulty.sh")
	raw, err := measure(context.Background(), localTarget(t), prog, faultyOptions("a", "diesatexit"))
	if err != nil {
		t.Fatal(err)
	}
	if cs := raw.cases(); len(cs) != 2 || cs[1].Name != "diesatexit" || cs[1].Partial || len(raw.Failures) > 0 {
		t.Fatalf("cases %+v, failures %+v: want both measured, none failed", cs, raw.Failures)
	}
	if len(raw.DiedAtExit) != 1 || !strings.Contains(raw.DiedAtExit[0], "SIGSEGV") {
		t.Fatalf("died at exit: %q, want process 0's SIGSEGV", raw.DiedAtExit)
	}
	a := &artifact.Artifact{}
	checkSettings(a, raw, faultyOptions("a", "diesatexit"))
	if !slices.ContainsFunc(a.Warnings, func(w string) bool { return strings.Contains(w, "died after its last case in 1 of 1 processes") }) {
		t.Errorf("warnings %q, want the crash at exit", a.Warnings)
	}
}

// TestCheckSettingsWarns: a program that ignores --samples or --min-time, or prints no timer_overhead_ns, is
// measured with a warning that says so.
func TestCheckSettingsWarns(t *testing.T) {
	raw := &Raw{Processes: []RawProcess{{Cases: []RawCase{{Name: "a", Ops: []int64{10, 10, 10, 10, 10, 10}, Ns: []int64{20000, 20000, 20000, 20000, 20000, 20000}}}}}}
	opts := Options{Samples: 5, MinTime: 10 * time.Millisecond}
	a := &artifact.Artifact{}
	checkSettings(a, raw, opts)
	text := strings.Join(a.Warnings, "\n")
	for _, want := range []string{"no timer_overhead_ns", "a: the program ignores the settings: 6 samples where --samples asked for 5", "samples of at most 20000 ns where --min-time asked for 10ms"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the warnings:\n%s", want, text)
		}
	}
	raw = &Raw{sawTimer: true, Processes: []RawProcess{{Cases: []RawCase{{Name: "a", Ops: []int64{10, 10, 10, 10, 10}, Ns: []int64{9e6, 9e6, 9e6, 9e6, 9e6}}}}}}
	a = &artifact.Artifact{}
	if checkSettings(a, raw, opts); len(a.Warnings) > 0 {
		t.Errorf("warnings for a program that follows the settings: %v", a.Warnings)
	}
}

// TestImplemented: the cases asked for split into those the program lists and the rest.
func TestImplemented(t *testing.T) {
	run, missing := Implemented([]string{"ref_js_loop", "a", "b", "c"}, []string{"c", "ref_js_loop", "a"})
	if strings.Join(run, ",") != "ref_js_loop,a,c" || strings.Join(missing, ",") != "b" {
		t.Fatalf("run %v, missing %v", run, missing)
	}
	names, err := ListCases(context.Background(), localTarget(t), mustAbs(t, "testdata/faulty.sh"))
	if err != nil || strings.Join(names, ",") != "a,b,c" {
		t.Fatalf("list: %v, %v", names, err)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestMeasureKeepsWhatItHasWhenCancelled(t *testing.T) {
	prog, _ := filepath.Abs("testdata/faulty.sh")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	o := faultyOptions("a", "hang", "b")
	o.Stall = time.Minute
	raw, err := measure(ctx, localTarget(t), prog, o)
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	if len(raw.Processes[0].Cases) != 1 || failure(raw, "hang") == nil || failure(raw, "hang").Reason != "interrupted" {
		t.Fatalf("want a measured and hang marked interrupted, got %+v", raw)
	}
}

// Every process runs the cases in its own order, drawn from the seed; a case that crashed is not run again.
func TestMeasureRunsProcessesInVariedOrder(t *testing.T) {
	prog, _ := filepath.Abs("testdata/faulty.sh")
	o := faultyOptions("a", "b", "c", "d", "crash")
	o.Runs, o.Seed = 4, 42
	raw, err := measure(context.Background(), localTarget(t), prog, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.Processes) != 4 {
		t.Fatalf("%d processes, want 4", len(raw.Processes))
	}
	orders := map[string]bool{}
	crashRuns := 0
	for i, p := range raw.Processes {
		if want := CaseOrder(42, i, o.Cases); !slices.Equal(p.Order, slices.DeleteFunc(want, func(n string) bool { return n == "crash" && i > 0 })) {
			t.Errorf("process %d ran %v, want the seed's order %v", i, p.Order, want)
		}
		orders[strings.Join(p.Order, ",")] = true
		if slices.Contains(p.Order, "crash") {
			crashRuns++
		}
		if len(p.Cases) != 4 || p.Seq != i {
			t.Errorf("process %d: seq %d, %d cases measured, want 4", i, p.Seq, len(p.Cases))
		}
	}
	if len(orders) < 2 {
		t.Errorf("every process ran the same order: %v", orders)
	}
	if crashRuns != 1 || len(raw.Failures) != 1 {
		t.Errorf("the crashing case ran in %d processes and failed %d times; want once", crashRuns, len(raw.Failures))
	}
}

// A protocol 1 program that refuses protocol 2's flags (exit 2, nothing printed) is asked again without them.
func TestMeasureRunsProtocol1ProgramsThatRefuseNewFlags(t *testing.T) {
	prog, _ := filepath.Abs("testdata/strict_v1.sh")
	o := faultyOptions("ref_js_loop", "a")
	o.Runs = 2
	raw, err := measure(context.Background(), localTarget(t), prog, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.Processes) != 2 || raw.Processes[1].Protocol != 1 || len(raw.Processes[1].Cases) != 2 || len(raw.Failures) != 0 {
		t.Fatalf("processes %+v, failures %+v", raw.Processes, raw.Failures)
	}
	o.Slowdown = 0.1
	if _, err := measure(context.Background(), localTarget(t), prog, o); err == nil || !strings.Contains(err.Error(), "protocol 1: --slowdown needs") {
		t.Fatalf("err = %v, want --slowdown refused for a protocol 1 program", err)
	}
}

func TestAssemble(t *testing.T) {
	// Two processes of protocol 2: each case's ratio is against the ref samples beside it in its own process.
	raw := &Raw{Processes: []RawProcess{
		{Protocol: 2, TimerOverheadNs: 100, Cases: []RawCase{
			{Name: "ref_js_loop", Iterations: 10, Ops: []int64{10, 10, 10}, Ns: []int64{1100, 1200, 1300}},
			{Name: "script_to_host_scalar", Iterations: 10, Ops: []int64{10, 10, 10}, Ns: []int64{5100, 4100, 6100},
				RefOps: []int64{10, 10, 10}, RefNs: []int64{1000, 1100, 1600}},
		}},
		{Protocol: 2, TimerOverheadNs: 0, Cases: []RawCase{
			{Name: "script_to_host_scalar", Iterations: 20, Ops: []int64{20, 20, 20}, Ns: []int64{12000, 12000, 12000},
				RefOps: []int64{10, 10, 10}, RefNs: []int64{1200, 1200, 1200}},
			{Name: "ref_js_loop", Iterations: 10, Ops: []int64{10, 10, 10}, Ns: []int64{1000, 1000, 1000}},
		}},
	}}
	a := &artifact.Artifact{}
	Assemble(a, raw, []string{"ref_js_loop", "script_to_host_scalar"})
	ref, call := a.Case("ref_js_loop"), a.Case("script_to_host_scalar")
	// Timer overhead comes off each sample before dividing by ops: (1200-100)/10 = 110; the medians of the two
	// processes (110 and 100; 500 and 600) give the case's median.
	if ref.MedianNs != 105 || call.MedianNs != 550 || len(call.Processes) != 2 || len(call.SamplesNs) != 6 {
		t.Fatalf("medians %v, %v; processes %d, samples %d", ref.MedianNs, call.MedianNs, len(call.Processes), len(call.SamplesNs))
	}
	// Process 0: 500 over the ref beside it, (1100-100)/10 = 100: 5; process 1: 600 / 120 = 5. The case's ratio is
	// its least sample over the least ref sample beside it: 400 / 90.
	p0, p1 := call.Processes[0], call.Processes[1]
	if p0.RefMedianNs != 100 || *p0.RatioToRef != 5 || *p1.RatioToRef != 5 || *call.RatioToRef != 400.0/90 {
		t.Fatalf("ratios %+v %+v, case %v", p0, p1, *call.RatioToRef)
	}
	if *call.CrossingsPerMs != 1e6/550 || ref.CrossingsPerMs != nil || *ref.RatioToRef != 1 {
		t.Fatalf("per ms %v, ref per ms %v", *call.CrossingsPerMs, ref.CrossingsPerMs)
	}
	if call.PILevel != 0.95 || !(call.PILowNs < 550 && call.PIHighNs > 550) || a.Settings.Runs != 2 || len(a.Processes) != 2 {
		t.Fatalf("interval %v..%v at %v, runs %d", call.PILowNs, call.PIHighNs, call.PILevel, a.Settings.Runs)
	}
	if !a.Complete {
		t.Fatal("want complete")
	}
	partial := &artifact.Artifact{}
	Assemble(partial, raw, []string{"ref_js_loop", "script_to_host_scalar", "callback"})
	if partial.Complete {
		t.Fatal("a run that measured fewer cases than asked for must not be complete")
	}
}
