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

func TestMeasureRejectsOutputOutsideTheProtocol(t *testing.T) {
	prog, _ := filepath.Abs("testdata/faulty.sh")
	raw, err := Measure(context.Background(), localTarget(t), prog, faultyOptions("a", "garbage", "b"))
	if err == nil || !strings.Contains(err.Error(), `line 11: unknown record "hello"`) {
		t.Fatalf("err = %v, want the line that broke the protocol", err)
	}
	if len(raw.Cases) != 1 || raw.Cases[0].Name != "a" {
		t.Fatalf("want the case measured before the bad line kept, got %+v", raw.Cases)
	}
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
