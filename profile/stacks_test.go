package profile

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/targets"
)

// perfScript is `perf script` text as perf 6.1 prints it here for `perf record -g` (lines copied from a profile of
// the json bridge on this machine, the paths shortened): the sampled frame first, kernel frames in
// [kernel.kallsyms], frames without a symbol as [unknown] (a run of them where the unwinding broke off in the C
// library, which has no frame pointers), a C++ name with spaces, a last sample without its blank line.
const perfScript = `bridge-json 31174  1479.436705:     250000 cpu-clock: 
	    7feb824f2ad7 [unknown] ([unknown])

bridge-json 31174  1479.470860:     250000 cpu-clock: 
	ffffffff8225f759 pvm_irq_enable+0x19 ([kernel.kallsyms])
	ffffffff81000c82 asm_exc_page_fault+0x22 ([kernel.kallsyms])
	           44936 __GI_____strtod_l_internal+0xa56 (/usr/lib/x86_64-linux-gnu/libc.so.6)
	5900000000000000 [unknown] ([unknown])

bridge-json 31174  1479.471020:     250000 cpu-clock: 
	           7e742 __vsnprintf_internal+0x92 (/usr/lib/x86_64-linux-gnu/libc.so.6)
	        ffffffff [unknown] ([unknown])
	    558b671f95e8 [unknown] ([unknown])
	    558b671f95e8 [unknown] ([unknown])
	    558b671f95e8 [unknown] ([unknown])

bridge-json 31174  1479.473039:     250000 cpu-clock: 
	           17e31 host_entry+0xd1 (/tmp/bb/bridge-json)
	           61925 js_call_c_function+0xd5 (/tmp/bb/bridge-json)
	           28e6b JS_CallInternal+0x7cb (/tmp/bb/bridge-json)
	           28a26 JS_CallInternal+0x386 (/tmp/bb/bridge-json)
	            eb2f main+0x1df (/tmp/bb/bridge-json)

bridge-json 31174  1479.473300:     250000 cpu-clock: 
	           17e40 host_entry+0xe0 (/tmp/bb/bridge-json)
	           61925 js_call_c_function+0xd5 (/tmp/bb/bridge-json)
	           28e6b JS_CallInternal+0x7cb (/tmp/bb/bridge-json)
	           28a26 JS_CallInternal+0x386 (/tmp/bb/bridge-json)
	            eb2f main+0x1df (/tmp/bb/bridge-json)

bridge-json 31174  1479.473512:     250000 cpu-clock: 
	           a1c2c operator new(unsigned long)+0x1c (/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)
	           1b2c0 [unknown] (/tmp/bb/bridge-json)
	            eb2f main+0x1df (/tmp/bb/bridge-json)`

func TestFoldPerfScript(t *testing.T) {
	got, err := foldPerfScript(strings.NewReader(perfScript))
	if err != nil {
		t.Fatal(err)
	}
	want := Stacks{
		"[unknown]": 1,
		"[unknown];__GI_____strtod_l_internal;asm_exc_page_fault_[k];pvm_irq_enable_[k]": 1,
		"[unknown];__vsnprintf_internal":                                                 1, // an unwinding that broke off in libc: its run of [unknown] is one
		"main;JS_CallInternal;JS_CallInternal;js_call_c_function;host_entry":             2,
		"main;[bridge-json];operator new(unsigned long)":                                 1,
	}
	if !maps.Equal(got, want) {
		t.Errorf("folded\n%s\nwant\n%s", foldedText(got), foldedText(want))
	}
}

// indented prints as simpleperf's FprintIndented does (simpleperf/utils.cpp): two spaces a level, then the format.
func indented(b *strings.Builder, indent int, format string, args ...any) {
	fmt.Fprintf(b, "%*s", indent*2, "")
	fmt.Fprintf(b, format, args...)
}

// spFrame is one entry of a report-sample call chain: its address in the file, the file, the symbol.
type spFrame struct {
	vaddr      uint64
	file, name string
}

// reportSample builds text in the format `simpleperf report-sample --show-callchain` prints, statement by statement
// after AOSP's system/extras simpleperf/cmd_report_sample.cpp (as of March 2024): ReportSampleCommand::PrintMetaInfo,
// then per sample ReportSampleCommand::PrintSample (its own fields name the sampled frame, "callchain:" the others,
// printed only when there are others), a context switch as ReportSampleCommand::PrintContextSwitch prints it, and
// ReportSampleCommand::PrintLostSituation at the end.
func reportSample(samples [][]spFrame) string {
	var b strings.Builder
	indented(&b, 0, "meta_info:\n")
	indented(&b, 1, "trace_offcpu: %s\n", "false")
	indented(&b, 1, "event_type: %s\n", "cpu-cycles")
	indented(&b, 1, "android_sdk_version: %s\n", "34")
	for i, entries := range samples {
		indented(&b, 0, "sample:\n")
		indented(&b, 1, "event_type: %s\n", "cpu-cycles")
		indented(&b, 1, "time: %d\n", 1000+i)
		indented(&b, 1, "event_count: %d\n", 500000)
		indented(&b, 1, "thread_id: %d\n", 4242)
		indented(&b, 1, "thread_name: %s\n", "bridge-json")
		indented(&b, 1, "vaddr_in_file: %x\n", entries[0].vaddr)
		indented(&b, 1, "file: %s\n", entries[0].file)
		indented(&b, 1, "symbol: %s\n", entries[0].name)
		if len(entries) > 1 {
			indented(&b, 1, "callchain:\n")
			for _, e := range entries[1:] {
				indented(&b, 2, "vaddr_in_file: %x\n", e.vaddr)
				indented(&b, 2, "file: %s\n", e.file)
				indented(&b, 2, "symbol: %s\n", e.name)
			}
		}
		if i == 0 {
			indented(&b, 0, "context_switch:\n")
			indented(&b, 1, "switch_on: %s\n", "true")
			indented(&b, 1, "time: %d\n", 1000)
			indented(&b, 1, "thread_id: %d\n", 4242)
		}
	}
	indented(&b, 0, "lost_situation:\n")
	indented(&b, 1, "sample_count: %d\n", len(samples))
	indented(&b, 1, "lost_count: %d\n", 0)
	return b.String()
}

func TestFoldReportSample(t *testing.T) {
	const prog = "/data/local/tmp/bench-bridge/bridge-json"
	const libc = "/apex/com.android.runtime/lib64/bionic/libc.so"
	hostCall := []spFrame{{0x17e31, prog, "host_entry"}, {0x61925, prog, "js_call_c_function"}, {0x28e6b, prog, "JS_CallInternal"},
		{0x4eb2f, prog, "main"}, {0x4a000, libc, "__libc_init"}}
	text := reportSample([][]spFrame{
		hostCall,
		hostCall,
		// In the kernel: the kernel's frames first, then the process's. An address without a symbol is named by
		// its file and offset, marked with "*" (thread_tree.cpp, ThreadTree::FindSymbol).
		{{0xffffffc0081a2b30, "[kernel.kallsyms]", "el0_svc_common"}, {0xffffffc008012345, "[kernel.kallsyms]", "el0_svc"},
			{0x9c0f0, libc, "write"}, {0x1b2c0, prog, "*bridge-json[+1b2c0]"}, {0x4eb2f, prog, "main"}},
		// A sample alone, without a call chain.
		{{0x91070, prog, "js_json_check"}},
	})
	t.Logf("report-sample text:\n%s", text)
	got, err := foldReportSample(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := Stacks{
		"__libc_init;main;JS_CallInternal;js_call_c_function;host_entry": 2,
		"main;[bridge-json];write;el0_svc_[k];el0_svc_common_[k]":        1,
		"js_json_check": 1,
	}
	if !maps.Equal(got, want) {
		t.Errorf("folded\n%s\nwant\n%s", foldedText(got), foldedText(want))
	}

	// Before Android 9 a sample named its frames "dso:" and "symbol:" after "ip:" (the 2016 version of
	// cmd_report_sample.cpp, ReportSampleCommand::PrintSampleRecord), and an address without a symbol "unknown".
	var old strings.Builder
	indented(&old, 0, "sample:\n")
	indented(&old, 1, "time: %d\n", 1000)
	indented(&old, 1, "thread_id: %d\n", 4242)
	indented(&old, 1, "ip: %x\n", 0x17e31)
	indented(&old, 1, "dso: %s\n", prog)
	indented(&old, 1, "symbol: %s\n", "host_entry")
	indented(&old, 1, "callchain:\n")
	for _, f := range []spFrame{{0x2000, "/system/lib64/libc.so", "unknown"}, {0x4eb2f, prog, "main"}} {
		indented(&old, 2, "ip: %x\n", f.vaddr)
		indented(&old, 2, "dso: %s\n", f.file)
		indented(&old, 2, "symbol: %s\n", f.name)
	}
	got, err = foldReportSample(strings.NewReader(old.String()))
	if want := (Stacks{"main;[libc.so];host_entry": 1}); err != nil || !maps.Equal(got, want) {
		t.Errorf("the old format: %v\n%s\nwant\n%s", err, foldedText(got), foldedText(want))
	}
}

func foldedText(s Stacks) string {
	var b strings.Builder
	s.writeFolded(&b)
	return b.String()
}

// TestFoldedStacksRoundTrip: the stacks a profile writes at the end of its raw output read back as they were.
func TestFoldedStacksRoundTrip(t *testing.T) {
	s, err := foldPerfScript(strings.NewReader(perfScript))
	if err != nil {
		t.Fatal(err)
	}
	if back := ParseFolded("  12.00%  host_entry\n#\n" + foldedText(s)); !maps.Equal(back, s) {
		t.Errorf("read back\n%s\nwant\n%s", foldedText(back), foldedText(s))
	}
}

// TestFoldOnDeviceErrors runs real commands on the local target in the place of a profiler's stack command: one
// that fails, and one that prints no stacks, are errors that name the device and the command.
func TestFoldOnDeviceErrors(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the local target here is not linux")
	}
	local, err := targets.NewLocal("linux", targets.Spec{Kind: "local"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		script, want string
	}{
		{"echo no such data file >&2; exit 3", "linux: sh -c \"echo no such data file >&2; exit 3\" p.data: exit status 3\nno such data file"},
		{"echo 'sample header:'", "linux: sh -c \"echo 'sample header:'\" p.data printed no stacks"},
	} {
		tool := Tool{Name: "perf", Fold: foldPerfScript, Stacks: func(data string) []string { return []string{"sh", "-c", tt.script, data} }}
		if _, err := foldOnDevice(context.Background(), local, tool, "p.data"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.script, err, tt.want)
		}
	}
}
