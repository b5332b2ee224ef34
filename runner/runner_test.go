package runner

import (
	"context"
	"path/filepath"
	"runtime"
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
	o.Cases, o.Stall = cases, 2*time.Second
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
	raw, err := Measure(context.Background(), localTarget(t), prog, faultyOptions("a", "crash", "b", "hang", "fails", "c"))
	if err != nil {
		t.Fatal(err)
	}
	var measured []string
	for _, c := range raw.Cases {
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
	if raw.TimerOverheadNs != 20 || raw.Cases[0].Iterations != 1000 || len(raw.Cases[0].Ns) != 3 {
		t.Errorf("raw = %+v", raw)
	}
}

// TestMeasureRecordsOutputOutsideTheProtocol: a line outside the protocol fails its case, with the line's number and
// text, and the cases after it run in a new process.
func TestMeasureRecordsOutputOutsideTheProtocol(t *testing.T) {
	prog, _ := filepath.Abs("testdata/faulty.sh")
	raw, err := Measure(context.Background(), localTarget(t), prog, faultyOptions("a", "garbage", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.Cases) != 2 || raw.Cases[0].Name != "a" || raw.Cases[1].Name != "b" {
		t.Fatalf("want a and b measured, got %+v", raw.Cases)
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
	raw, err := Measure(context.Background(), localTarget(t), prog, faultyOptions("a", "dies", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.Cases) != 3 || raw.Cases[1].Name != "dies" || !raw.Cases[1].Partial || len(raw.Cases[1].Ns) != 2 || raw.Cases[2].Name != "b" {
		t.Fatalf("cases %+v, want dies kept with its 2 samples, partial, and b after it", raw.Cases)
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

// TestCheckSettingsWarns: a program that ignores --samples or --min-time, or prints no timer_overhead_ns, is
// measured with a warning that says so.
func TestCheckSettingsWarns(t *testing.T) {
	raw := &Raw{Cases: []RawCase{{Name: "a", Ops: []int64{10, 10, 10, 10, 10, 10}, Ns: []int64{20000, 20000, 20000, 20000, 20000, 20000}}}}
	opts := Options{Samples: 5, MinTime: 10 * time.Millisecond}
	a := &artifact.Artifact{}
	checkSettings(a, raw, opts)
	text := strings.Join(a.Warnings, "\n")
	for _, want := range []string{"no timer_overhead_ns", "a: the program ignores the settings: 6 samples where --samples asked for 5", "samples of at most 20000 ns where --min-time asked for 10ms"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the warnings:\n%s", want, text)
		}
	}
	raw = &Raw{sawTimer: true, Cases: []RawCase{{Name: "a", Ops: []int64{10, 10, 10, 10, 10}, Ns: []int64{9e6, 9e6, 9e6, 9e6, 9e6}}}}
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
	raw, err := Measure(ctx, localTarget(t), prog, o)
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	if len(raw.Cases) != 1 || failure(raw, "hang") == nil || failure(raw, "hang").Reason != "interrupted" {
		t.Fatalf("want a measured and hang marked interrupted, got %+v", raw)
	}
}

func TestAssemble(t *testing.T) {
	raw := &Raw{TimerOverheadNs: 100, Cases: []RawCase{
		{Name: "ref_js_loop", Iterations: 10, Ops: []int64{10, 10, 10}, Ns: []int64{1100, 1200, 1300}},
		{Name: "script_to_host_scalar", Iterations: 10, Ops: []int64{10, 10, 10}, Ns: []int64{5100, 4100, 6100}},
	}}
	a := &artifact.Artifact{}
	Assemble(a, raw, []string{"ref_js_loop", "script_to_host_scalar"})
	ref, call := a.Case("ref_js_loop"), a.Case("script_to_host_scalar")
	// Timer overhead comes off each sample before dividing by ops: (1200-100)/10 = 110.
	if ref.MedianNs != 110 || call.MedianNs != 500 {
		t.Fatalf("medians %v, %v; want 110, 500", ref.MedianNs, call.MedianNs)
	}
	if *call.RatioToRef != 500.0/110 || *call.CrossingsPerMs != 2000 || ref.CrossingsPerMs != nil {
		t.Fatalf("ratio %v, per ms %v, ref per ms %v", *call.RatioToRef, *call.CrossingsPerMs, ref.CrossingsPerMs)
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
