package profile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/bench-bridge/bench-bridge/targets"
)

// The sampling profilers' stacks are printed on the device, one sample at a time with its call chain innermost
// first, and folded here into Stacks (outermost first) as they stream in: a long profile's text is never held whole.
// Every frame is named alike whichever profiler took it (frameName), so that a differential flame graph can match
// the frames of two profiles; the process's name is not a frame, so that the stacks of two programs match too.

// frameName names one frame for a folded stack: the symbol without its offset ("+0x1f"); a frame without a symbol
// is named by its object in brackets ("[libc.so.6]"), or "[unknown]"; a frame in the kernel (kernelObject) gets
// the suffix "_[k]" (as stackcollapse-perf.pl --kernel marks them, and flamegraph.pl colours them). ";" separates
// frames in a folded stack, so a name never holds one.
func frameName(symbol, object string) string {
	name := symOffset.ReplaceAllString(strings.TrimSpace(symbol), "")
	if name == "" || name == "[unknown]" {
		name = "[unknown]"
		if object != "" && object != "[unknown]" {
			name = "[" + strings.Trim(path.Base(object), "[]") + "]"
		}
	}
	if kernelObject(object) {
		name += "_[k]"
	}
	return strings.ReplaceAll(name, ";", ":")
}

var symOffset = regexp.MustCompile(`\+0x[0-9a-fA-F]+$`)

// kernelObject says whether an object a profiler names is the kernel: its image ("[kernel.kallsyms]", "vmlinux")
// or a module named by its file (".ko"). A module perf names by its bare name in brackets ("[nf_tables]") is not
// told from the process's own pseudo-objects ("[vdso]") and is left unmarked.
func kernelObject(object string) bool {
	switch {
	case strings.HasPrefix(object, "[kernel.") || strings.HasPrefix(object, "[guest.kernel.") || strings.HasSuffix(object, "vmlinux"):
		return true
	case strings.HasSuffix(object, ".ko") || strings.HasSuffix(object, ".ko]"):
		return true
	}
	return false
}

// stackFolder counts stacks given innermost frame first.
type stackFolder struct {
	out    Stacks
	frames []string // the current sample's, innermost first
}

// frame adds the next frame outwards. A run of frames without a symbol or object is one: an unwinding that broke off
// in code without frame pointers (the C library) goes on through garbage up to the profiler's limit of 127 frames,
// "[unknown]" each, which would make a flame graph a hundred rows tall.
func (f *stackFolder) frame(name string) {
	if name == "[unknown]" && len(f.frames) > 0 && f.frames[len(f.frames)-1] == name {
		return
	}
	f.frames = append(f.frames, name)
}

// end closes the current sample: a sample without frames is not counted.
func (f *stackFolder) end() {
	if len(f.frames) == 0 {
		return
	}
	outer := make([]string, len(f.frames))
	for i, fr := range f.frames {
		outer[len(outer)-1-i] = fr
	}
	f.out[strings.Join(outer, ";")]++
	f.frames = f.frames[:0]
}

// lines calls line for every line of r; a line longer than a MiB is an error, not a truncated stack.
func lines(r io.Reader, line func(string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line(sc.Text())
	}
	return sc.Err()
}

// perfFrame is a frame line of `perf script`: the address, then the symbol and its offset, then the object in
// parentheses: "	    55d0c3a1 JS_CallInternal+0x386 (/path/bridge)". A symbol may hold spaces (C++), so the
// object is the last parenthesised part.
var perfFrame = regexp.MustCompile(`^\s+[0-9a-fA-F]+\s+(.*?)\s+\((.*)\)$`)

// foldPerfScript folds the text of `perf script` with call chains (perf record -g): each sample is a header line
// ("comm pid time: period event:") at the start of a line, then its frames one a line, indented, innermost first,
// and a blank line. This is the format stackcollapse-perf.pl reads.
func foldPerfScript(r io.Reader) (Stacks, error) {
	f := &stackFolder{out: Stacks{}}
	err := lines(r, func(line string) {
		switch {
		case strings.TrimSpace(line) == "":
			f.end()
		case line[0] != ' ' && line[0] != '\t':
			f.end() // a header: the next sample starts
		default:
			if m := perfFrame.FindStringSubmatch(line); m != nil {
				f.frame(frameName(m[1], m[2]))
			}
		}
	})
	f.end()
	return f.out, err
}

// simpleperfUnknown is how report-sample names an address without a symbol: "*libfoo.so[+1a2b]" (thread_tree.cpp,
// ShowMarkForUnknownSymbol and ShowIpForUnknownSymbol), or "unknown".
var simpleperfUnknown = regexp.MustCompile(`^\*?.*\[\+[0-9a-fA-F]+\]$|^\*?unknown$`)

// foldReportSample folds the text of `simpleperf report-sample --show-callchain`: records at the start of a line
// ("sample:", and others: "meta_info:", "lost_situation:", "context_switch:"), their fields indented two spaces a
// level. A sample's own fields name the sampled frame ("file:", or "dso:" before Android 9, then "symbol:"); its
// "callchain:" lists the callers innermost first, each as the same fields one level deeper.
func foldReportSample(r io.Reader) (Stacks, error) {
	f := &stackFolder{out: Stacks{}}
	inSample, object := false, ""
	err := lines(r, func(line string) {
		if line == "" {
			return
		}
		if line[0] != ' ' {
			f.end()
			inSample, object = strings.TrimSpace(line) == "sample:", ""
			return
		}
		if !inSample {
			return
		}
		key, value, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok {
			key = strings.TrimSuffix(strings.TrimSpace(line), ":")
		}
		switch key {
		case "file", "dso":
			object = value
		case "symbol":
			if simpleperfUnknown.MatchString(value) {
				value = "[unknown]"
			}
			f.frame(frameName(value, object))
			object = ""
		}
	})
	f.end()
	return f.out, err
}

// foldOnDevice runs the tool's stack command on the device within the report bound and folds its output as it
// comes.
func foldOnDevice(ctx context.Context, t targets.Target, tool Tool, data string) (Stacks, error) {
	cmd := tool.Stacks(data)
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		err := runWithin(ctx, t, reportBound, cmd, pw, &stderr)
		pw.Close()
		done <- err
	}()
	stacks, ferr := tool.Fold(pr)
	io.Copy(io.Discard, pr) // a fold that stopped early must not leave the command blocked on its output
	if err := <-done; err != nil {
		return nil, fmt.Errorf("%s: %s: %w\n%s", t.Name(), quoteArgs(cmd), err, tail(stderr.String()))
	}
	if ferr != nil {
		return nil, fmt.Errorf("%s: reading the output of %s: %w", t.Name(), quoteArgs(cmd), ferr)
	}
	if len(stacks) == 0 {
		return nil, fmt.Errorf("%s: %s printed no stacks\n%s", t.Name(), quoteArgs(cmd), tail(stderr.String()))
	}
	return stacks, nil
}
