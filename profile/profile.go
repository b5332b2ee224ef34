package profile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Options say what to profile and where the output goes.
type Options struct {
	Case    string
	Seconds float64
	Tool    string // a name from Tools, or "" for the target's best
	OutDir  string // local directory for the raw output and data file
	Log     io.Writer
}

// Result is a finished profile.
type Result struct {
	Summary
	Raw  string // the profiler's text output, saved locally
	Data string // the profiler's own data file, saved locally ("" when it has none)
}

// install says how to get each profiler.
var install = map[string]string{
	"perf":       "install perf (Debian: apt-get install linux-perf)",
	"strace":     "install strace (Debian: apt-get install strace)",
	"callgrind":  "install valgrind (Debian: apt-get install valgrind)",
	"simpleperf": "simpleperf ships with Android 9 and later; on older devices push the NDK's simpleperf to the device's PATH",
	"sample":     "sample ships with macOS",
}

// preference is the order Run tries profilers in when none is named: the sampling profiler of the platform first,
// then a syscall count, which every Linux device can usually run.
func preference(os string) []string {
	if os == "Darwin" {
		return []string{"sample"}
	}
	return []string{"simpleperf", "perf", "strace"}
}

// ParseSeconds reads the SECS argument.
func ParseSeconds(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || v > 3600 {
		return 0, fmt.Errorf("SECS %q is not a number of seconds between 0 and 3600", s)
	}
	return v, nil
}

// Bounds of the profile's steps on the device, so that one that stops answering fails the profile with the step's
// name. Recording runs the loop for the seconds asked plus what the profiler adds (valgrind starts slowly, perf
// writes its data); probing for a tool and reporting take moments.
var (
	probeBound  = 30 * time.Second
	recordSlack = 5 * time.Minute
	reportBound = 5 * time.Minute
)

// runWithin runs argv on the device within bound; the error names the command and the bound it ran out of.
func runWithin(ctx context.Context, t targets.Target, bound time.Duration, argv []string, stdout, stderr io.Writer) error {
	bctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	err := t.Run(bctx, argv[0], argv[1:], stdout, stderr)
	if err != nil && ctx.Err() == nil && errors.Is(bctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s did not finish within %s: %w", quoteArgs(argv), bound, err)
	}
	return err
}

// Run profiles program (already on the device) running o.Case in its loop mode for o.Seconds, saves the raw output
// as OutDir/profile-<target>-<case>.txt (and the data file beside it) and returns the summary.
func Run(ctx context.Context, t targets.Target, program string, dev artifact.Device, o Options) (*Result, error) {
	tool, err := choose(ctx, t, dev, o.Tool)
	if err != nil {
		return nil, err
	}
	data := path.Join(path.Dir(program), "profile-"+o.Case+"."+tool.Name)
	argv := []string{program, "loop", o.Case, strconv.FormatFloat(o.Seconds, 'f', -1, 64)}
	record := tool.Record(argv, data, tool.Name == "perf" && !hasHardwareCycles(ctx, t))
	fmt.Fprintf(o.Log, "%s: profiling %s for %gs: %s\n", t.Name(), o.Case, o.Seconds, quoteArgs(record))
	if dev.Emulated {
		fmt.Fprintf(o.Log, "%s: warning: the run is emulated (%s): this profiles the emulator, not a device\n", t.Name(), dev.EmulatedReason)
	}
	var stdout, stderr bytes.Buffer
	recordBound := time.Duration(o.Seconds*float64(time.Second)) + recordSlack
	if err := runWithin(ctx, t, recordBound, record, &stdout, &stderr); err != nil {
		return nil, fmt.Errorf("%s: %s on %s: %w\n%s%s", t.Name(), tool.Name, o.Case, err, stdout.String(), tail(stderr.String()))
	}
	base := filepath.Join(o.OutDir, "profile-"+t.Name()+"-"+o.Case)
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, err
	}
	res := &Result{Raw: base + ".txt"}
	var text string
	if tool.Report == nil {
		// The recorded file is the text.
		if err := t.Pull(ctx, data, res.Raw); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(res.Raw)
		if err != nil {
			return nil, err
		}
		text = string(b)
	} else {
		var report, rerr bytes.Buffer
		cmd := tool.Report(data)
		if err := runWithin(ctx, t, reportBound, cmd, &report, &rerr); err != nil {
			return nil, fmt.Errorf("%s: %s: %w\n%s", t.Name(), quoteArgs(cmd), err, tail(rerr.String()))
		}
		text = report.String()
		if err := artifact.WriteFileAtomic(res.Raw, report.Bytes()); err != nil {
			return nil, err
		}
		res.Data = base + "." + tool.Name + ".data"
		if err := t.Pull(ctx, data, res.Data); err != nil {
			return nil, err
		}
	}
	frames := tool.Parse(text)
	if len(frames) == 0 {
		return nil, fmt.Errorf("%s: %s recorded nothing that could be read (raw output in %s)", t.Name(), tool.Name, res.Raw)
	}
	res.Summary = Summarize(tool.Name, frames)
	return res, nil
}

// choose returns the named tool if the device has it, or the first the device has in the platform's preference.
func choose(ctx context.Context, t targets.Target, dev artifact.Device, name string) (Tool, error) {
	if name != "" {
		tool, ok := Tools[name]
		if !ok {
			return Tool{}, fmt.Errorf("unknown profiler %q (have %s)", name, strings.Join(ToolNames(), ", "))
		}
		if !has(ctx, t, command(tool)) {
			return Tool{}, fmt.Errorf("%s: profiler %s is not on the device: %s", t.Name(), name, install[name])
		}
		return tool, nil
	}
	prefs := preference(strings.Fields(dev.OS + " ")[0])
	for _, n := range prefs {
		if has(ctx, t, command(Tools[n])) {
			return Tools[n], nil
		}
	}
	var hints []string
	for _, n := range prefs {
		hints = append(hints, n+": "+install[n])
	}
	return Tool{}, fmt.Errorf("%s: no profiler found on the device (tried %s)\n%s", t.Name(), strings.Join(prefs, ", "), strings.Join(hints, "\n"))
}

// command is the program a tool needs on the device.
func command(t Tool) string {
	switch t.Name {
	case "callgrind":
		return "valgrind"
	}
	return t.Name
}

// has asks the device's shell whether a command is on its PATH.
func has(ctx context.Context, t targets.Target, cmd string) bool {
	return runWithin(ctx, t, probeBound, []string{"sh", "-c", "command -v " + cmd}, io.Discard, io.Discard) == nil
}

// hasHardwareCycles says whether perf can count cycles on the device: virtual machines and many phones have no PMU.
func hasHardwareCycles(ctx context.Context, t targets.Target) bool {
	var out bytes.Buffer
	err := runWithin(ctx, t, probeBound, []string{"perf", "stat", "-x,", "-e", "cycles", "true"}, io.Discard, &out)
	return err == nil && !strings.Contains(out.String(), "not supported") && !strings.Contains(out.String(), "not counted")
}

func tail(s string) string {
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return strings.TrimSpace(s)
}
