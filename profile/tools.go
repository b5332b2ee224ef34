// Package profile runs one case of a bench program in its loop mode under a profiler on a target, keeps the
// profiler's raw output, and summarises it: the top functions by self share and the share of each part of the
// boundary that the boundary report asks about (docs/method.md#the-boundary-report).
package profile

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Frame is one function and its self share of the profile, in percent.
type Frame struct {
	Symbol string  `json:"symbol"`
	Self   float64 `json:"self_percent"`
	Kernel bool    `json:"kernel,omitempty"`
}

// Tool is a profiler as bench-bridge drives it: a command that runs the program and writes data, and a command that
// turns the data into text that Parse reads. Paths are on the device.
type Tool struct {
	Name string
	// Record returns the command line that profiles argv (the program and its loop arguments) into data.
	Record func(argv []string, data string, softwareClock bool) []string
	// Report returns the command line that prints data as text, or nil when the recorded data is the text.
	Report func(data string) []string
	// Parse reads the text into frames, largest first.
	Parse func(text string) []Frame
	// Stacks returns the command line that prints data's samples with their call chains, and Fold folds that text
	// into Stacks; both nil for a tool without stacks. (itimer's stacks are in its own file.)
	Stacks func(data string) []string
	Fold   func(r io.Reader) (Stacks, error)
	// Period is the CPU time one sample stands for, nominally: the pprof profile's period.
	Period time.Duration
	// Emulates is true for a tool whose timings are simulated (callgrind counts instructions instead).
	CountsInstructions bool
	// InProcess is true for the bench programs' own profiler (itimer): nothing to find on the device, and its
	// samples are symbolised here against the program that was built.
	InProcess bool
}

// Tools are the profilers bench-bridge knows, by name.
var Tools = map[string]Tool{
	"perf": {
		Name: "perf",
		Record: func(argv []string, data string, softwareClock bool) []string {
			cmd := []string{"perf", "record", "-g", "-o", data}
			if softwareClock {
				// No hardware PMU (virtual machines, many phones): sample on the kernel's cpu-clock timer instead.
				cmd = append(cmd, "-e", "cpu-clock")
			}
			return append(append(cmd, "--"), argv...)
		},
		Report: func(data string) []string {
			return []string{"perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "symbol", "-g", "none", "--percent-limit", "0.1"}
		},
		Parse: parsePerf,
		Stacks: func(data string) []string {
			return []string{"perf", "script", "-i", data}
		},
		Fold:   foldPerfScript,
		Period: time.Second / 4000, // perf record samples at 4 kHz unless told otherwise
	},
	"simpleperf": {
		Name: "simpleperf",
		Record: func(argv []string, data string, _ bool) []string {
			return append([]string{"simpleperf", "record", "--call-graph", "fp", "-o", data, "--"}, argv...)
		},
		Report: func(data string) []string {
			return []string{"simpleperf", "report", "-i", data, "--sort", "symbol", "--percent-limit", "0.1"}
		},
		Parse: parsePerf,
		Stacks: func(data string) []string {
			return []string{"simpleperf", "report-sample", "--show-callchain", "-i", data}
		},
		Fold:   foldReportSample,
		Period: time.Second / 4000, // simpleperf record samples at 4 kHz unless told otherwise
	},
	"strace": {
		Name: "strace",
		Record: func(argv []string, data string, _ bool) []string {
			return append([]string{"strace", "-c", "-f", "-o", data, "--"}, argv...)
		},
		Parse: parseStrace,
	},
	"callgrind": {
		Name: "callgrind",
		Record: func(argv []string, data string, _ bool) []string {
			return append([]string{"valgrind", "--tool=callgrind", "--callgrind-out-file=" + data}, argv...)
		},
		Report: func(data string) []string {
			return []string{"callgrind_annotate", "--inclusive=no", "--auto=no", "--threshold=99.9", data}
		},
		Parse:              parseCallgrind,
		CountsInstructions: true,
	},
	"itimer": itimerTool,
	"sample": {
		Name: "sample",
		// sample attaches to a running process; the wrapper starts the program and samples it for its lifetime.
		Record: func(argv []string, data string, _ bool) []string {
			script := `"$@" & pid=$!; sample "$pid" -wait -mayDie -file "$0" >/dev/null 2>&1; wait "$pid"`
			return append([]string{"sh", "-c", script, data}, argv...)
		},
		Parse: parseSample,
	},
}

// ToolNames lists Tools' names, sorted.
func ToolNames() []string {
	var names []string
	for n := range Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// perfLine matches a flat perf or simpleperf report line: "  5.62%  [.] _int_free" or "5.62%  _int_free".
// perf pads the symbol with empty parent columns ("-  -"), which are not part of it.
var perfLine = regexp.MustCompile(`^\s*([0-9.]+)%\s+(?:(\[[.k]\])\s+)?(.+?)(?:\s+-\s+-)?\s*$`)

func parsePerf(text string) []Frame {
	var frames []Frame
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		m := perfLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, ok := percent(m[1])
		if !ok {
			continue
		}
		frames = append(frames, Frame{Symbol: m[3], Self: v, Kernel: m[2] == "[k]"})
	}
	return sorted(frames)
}

// parseStrace reads `strace -c`'s table: every syscall is kernel time; the share is strace's "% time", or the share
// of calls when the clock saw no time at all (a loop that makes almost no syscalls).
func parseStrace(text string) []Frame {
	var frames []Frame
	var calls []float64
	totalTime, totalCalls := 0.0, 0.0
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || f[len(f)-1] == "total" || f[len(f)-1] == "syscall" {
			continue
		}
		v, ok1 := percent(f[0])
		n, ok2 := count(f[3])
		if !ok1 || !ok2 {
			continue
		}
		frames = append(frames, Frame{Symbol: f[len(f)-1], Self: v, Kernel: true})
		calls = append(calls, n)
		totalTime, totalCalls = totalTime+v, totalCalls+n
	}
	if totalTime == 0 && totalCalls > 0 && !math.IsInf(totalCalls, 0) {
		for i := range frames {
			frames[i].Self = calls[i] / totalCalls * 100
		}
	}
	return sorted(frames)
}

// callgrindLine matches callgrind_annotate's "1,234,567 (12.34%)  file.c:function [binary]".
var callgrindLine = regexp.MustCompile(`^\s*[0-9,]+\s+\(\s*([0-9.]+)%\)\s+(?:\S*:)?(\S+)`)

func parseCallgrind(text string) []Frame {
	var frames []Frame
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "PROGRAM TOTALS") {
			continue
		}
		if len(frames) > 0 && strings.TrimSpace(line) == "" {
			break // the function table ends at its first blank line; annotated source may follow
		}
		m := callgrindLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, ok := percent(m[1])
		if !ok {
			continue
		}
		frames = append(frames, Frame{Symbol: m[2], Self: v})
	}
	return sorted(frames)
}

// sampleLine matches macOS sample's "Sort by top of stack" lines: "        _int_free  (in libsystem_malloc.dylib)        123".
var sampleLine = regexp.MustCompile(`^\s+(\S.*?)\s+\(in [^)]*\)\s+([0-9]+)\s*$`)

func parseSample(text string) []Frame {
	_, top, ok := strings.Cut(text, "Sort by top of stack")
	if !ok {
		return nil
	}
	var frames []Frame
	total := 0.0
	sc := bufio.NewScanner(strings.NewReader(top))
	for sc.Scan() {
		m := sampleLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, ok := count(m[2])
		if !ok {
			continue
		}
		total += n
		frames = append(frames, Frame{Symbol: m[1], Self: n})
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil // no samples, or more than a float can count: no shares to give
	}
	for i := range frames {
		frames[i].Self = frames[i].Self / total * 100
	}
	return sorted(frames)
}

// percent reads a profiler's share: a finite number from 0 to 100 (strconv also reads NaN and Inf).
func percent(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && v >= 0 && v <= 100
}

// count reads a profiler's count of calls or samples: finite and non-negative.
func count(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && v >= 0 && !math.IsInf(v, 0)
}

func sorted(frames []Frame) []Frame {
	sort.SliceStable(frames, func(i, j int) bool { return frames[i].Self > frames[j].Self })
	return frames
}

// quoteArgs is for messages: the command line as a user would type it.
func quoteArgs(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = a
		if strings.ContainsAny(a, " \"'$;&|") {
			q[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(q, " ")
}
