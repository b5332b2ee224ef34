package profile

import (
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// profilerSeeds are each profiler's text as it prints it, and the broken numbers it could print instead: shares over
// 100, counts that are not numbers, or none at all. The plain tests run them (the landing run fuzzes no further): a
// parser that lets one of them through fails there.
var profilerSeeds = map[string][]string{
	"perf": {
		"# Samples: 1K of event 'cpu-clock'\n#\n    45.12%  [.] js_call_c_function\n     5.62%  [k] do_syscall_64\n  2.00%  _int_free  -  -\n",
		"   NaN%  [.] nan_sym\n   1e999%  [.] inf_sym\n  150.0%  [.] over\n  1.2.3%  [.] dots\n  -5%  [.] neg\n",
	},
	"simpleperf": {
		"Cmdline: /data/local/tmp/bridge\nArch: arm64\nOverhead  Symbol\n40.00%    js_call\n10.00%    JS_ToFloat64\n",
		"Overhead  Symbol\n150.00%    over\n-5.00%    neg\n",
	},
	"strace": {
		"% time     seconds  usecs/call     calls    errors syscall\n------ ----------- ----------- --------- --------- ----------------\n" +
			" 60.00    0.000060          30         2           write\n 40.00    0.000040          40         1           read\n100.00    0.000100                     3           total\n",
		"  0.00    0.000000           0         5           write\n  0.00    0.000000           0         1e400       read\n",
		"  NaN    0 0 NaN 0 x\n  Inf 0 0 Inf 0 y\n  -1 0 0 -1 0 z\n",
		"  0.00    0.000000           0         0           write\n  0.00    0.000000           0         0           read\n",
	},
	"callgrind": {
		"--------\nIr\n--------\n1,234,567 (100.0%)  PROGRAM TOTALS\n\n--------\n  600,000 (48.60%)  quickjs.c:JS_CallInternal [/tmp/bridge]\n  300,000 (24.30%)  ???:memcpy\n\n-- annotated source\n",
		"  1 (nan%)  a\n  1 (1e999%)  b\n",
		"  10 (150.00%)  over\n  5 (50.00%)  a\n",
	},
	"sample": {
		"Sort by top of stack, same collapsed (when >= 5):\n        _int_free  (in libsystem_malloc.dylib)        123\n        js_call  (in bridge)        77\n",
		"Sort by top of stack\n        a  (in x)        0\n        b  (in y)        0\n",
		"Sort by top of stack\n        a  (in x)        " + strings.Repeat("9", 400) + "\n        b  (in y)        1\n",
	},
}

// fuzzProfiler checks one profiler's parser: no panic, and every frame a share from 0 to 100, largest first, that
// Summarize sums into finite parts.
func fuzzProfiler(f *testing.F, tool string) {
	for _, s := range profilerSeeds[tool] {
		f.Add(s)
	}
	parse := Tools[tool].Parse
	f.Fuzz(func(t *testing.T, text string) {
		frames := parse(text)
		for i, fr := range frames {
			if math.IsNaN(fr.Self) || fr.Self < 0 || fr.Self > 100 {
				t.Fatalf("%s: frame %+v: a share outside 0 to 100", tool, fr)
			}
			if i > 0 && fr.Self > frames[i-1].Self {
				t.Fatalf("%s: frames not largest first: %+v", tool, frames)
			}
		}
		for part, v := range Summarize(tool, frames).Parts {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: part %s is %v", tool, part, v)
			}
		}
	})
}

func FuzzParsePerf(f *testing.F)       { fuzzProfiler(f, "perf") }
func FuzzParseSimpleperf(f *testing.F) { fuzzProfiler(f, "simpleperf") }
func FuzzParseStrace(f *testing.F)     { fuzzProfiler(f, "strace") }
func FuzzParseCallgrind(f *testing.F)  { fuzzProfiler(f, "callgrind") }
func FuzzParseSample(f *testing.F)     { fuzzProfiler(f, "sample") }

// fuzzFold checks one profiler's stack folding: no panic; every stack has frames, none empty; the stacks read back
// as they were from the folded text the raw output ends with; and they make a valid pprof profile.
func fuzzFold(f *testing.F, fold func(io.Reader) (Stacks, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := fold(strings.NewReader(text))
		if err != nil {
			return // a line longer than the scanner takes
		}
		for stack, n := range s {
			if n == 0 || slices.Contains(strings.Split(stack, ";"), "") {
				t.Fatalf("stack %q: %d samples, or an empty frame", stack, n)
			}
		}
		var b strings.Builder
		s.writeFolded(&b)
		if back := ParseFolded(b.String()); !maps.Equal(back, s) {
			t.Fatalf("folded %v, read back %v", s, back)
		}
		if len(s) > 0 {
			if err := WritePprof(io.Discard, s, 250000); err != nil {
				t.Fatalf("pprof of %v: %v", s, err)
			}
		}
	})
}

func FuzzFoldPerfScript(f *testing.F) {
	fuzzFold(f, foldPerfScript, "x 1 1: 1 cpu-clock:\n\t0 ;+0x1 ()\n",
		"bridge 1  1.5:     250000 cpu-clock: \n\tffffffff8225f759 pvm_irq_enable+0x19 ([kernel.kallsyms])\n\t  17e31 host_entry+0xd1 (/tmp/bridge)\n\t  1b2c0 [unknown] (/tmp/bridge)\n\n")
}
func FuzzFoldReportSample(f *testing.F) {
	fuzzFold(f, foldReportSample, "sample:\n  file: /a\n  symbol: f\n  callchain:\n    file: [kernel.kallsyms]\n    symbol: g\n",
		"sample:\n  symbol: \n  callchain:\n    dso: \n    symbol: *x[+1]\n")
}
