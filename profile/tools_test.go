package profile

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/targets"
)

// The device profilers cannot run here (no Android device, no Mac): their command lines and their output formats
// are checked against what those tools print.

func TestDeviceProfilerCommandLines(t *testing.T) {
	argv := []string{"/data/local/tmp/bb/bridge", "loop", "callback", "5"}
	tests := []struct{ tool, want string }{
		{"simpleperf", "simpleperf record --call-graph fp -o /data/local/tmp/bb/p.data -- /data/local/tmp/bb/bridge loop callback 5"},
		{"strace", "strace -c -f -o /data/local/tmp/bb/p.data -- /data/local/tmp/bb/bridge loop callback 5"},
		{"perf", "perf record -g -o /data/local/tmp/bb/p.data -e cpu-clock -- /data/local/tmp/bb/bridge loop callback 5"},
	}
	for _, tt := range tests {
		if got := strings.Join(Tools[tt.tool].Record(argv, "/data/local/tmp/bb/p.data", true), " "); got != tt.want {
			t.Errorf("%s record:\n got %s\nwant %s", tt.tool, got, tt.want)
		}
	}
	if got := strings.Join(Tools["simpleperf"].Report("p.data"), " "); got != "simpleperf report -i p.data --sort symbol --percent-limit 0.1" {
		t.Errorf("simpleperf report: %s", got)
	}
	for tool, want := range map[string]string{"perf": "perf script -i p.data", "simpleperf": "simpleperf report-sample --show-callchain -i p.data"} {
		if got := strings.Join(Tools[tool].Stacks("p.data"), " "); got != want {
			t.Errorf("%s stacks: %s, want %s", tool, got, want)
		}
	}
}

func TestParseSimpleperfAndSample(t *testing.T) {
	simpleperf := `Cmdline: /system/bin/simpleperf record -o p.data
Arch: arm64
Samples: 21334
Event count: 5333500000

Overhead  Symbol
31.22%    strtod
12.10%    JS_CallInternal
5.00%     host_entry
1.00%     [kernel.kallsyms]
`
	frames := parsePerf(simpleperf)
	if len(frames) != 4 || frames[0].Symbol != "strtod" || frames[0].Self != 31.22 || Classify(frames[2]) != "boundary" {
		t.Fatalf("simpleperf frames %+v", frames)
	}
	sample := `Call graph:
    100 Thread_1   DispatchQueue_1: com.apple.main-thread  (serial)
Total number in stack (recursive counted multiple, when >=5):
Sort by top of stack, same collapsed (when >= 5):
        strtod_l  (in libsystem_c.dylib)        300
        JS_CallInternal  (in bridge)        100
        ???  (in bridge)        100
`
	frames = parseSample(sample)
	if len(frames) != 3 || frames[0].Symbol != "strtod_l" || frames[0].Self != 60 || Classify(frames[0]) != "number text" {
		t.Fatalf("sample frames %+v", frames)
	}
}

func TestClassify(t *testing.T) {
	for sym, want := range map[string]string{
		"__GI_____strtod_l_internal": "number text", "cfree@GLIBC_2.2.5": "allocation", "_int_free": "allocation",
		"js_json_to_str.constprop.0": "interpreter", "JS_CallInternal": "interpreter", "dyn_free": "boundary",
		"host_obj": "boundary", "strlen": "other", "js_dtoa": "number text",
	} {
		if got := Classify(Frame{Symbol: sym}); got != want {
			t.Errorf("Classify(%s) = %s, want %s", sym, got, want)
		}
	}
	if got := Classify(Frame{Symbol: "do_syscall_64", Kernel: true}); got != "kernel" {
		t.Errorf("kernel frame: %s", got)
	}
}

// TestProfileStepsHaveBounds: a command on the device that never finishes ends at its bound, and the error names
// the command and the bound.
func TestProfileStepsHaveBounds(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the local target here is not linux")
	}
	tgt, err := targets.NewLocal("linux", targets.Spec{Kind: "local"})
	if err != nil {
		t.Fatal(err)
	}
	err = runWithin(context.Background(), tgt, 200*time.Millisecond, []string{"sleep", "600"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "sleep 600 did not finish within 200ms") {
		t.Fatalf("%v", err)
	}
}
