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
	// Binary is the program's binary on this machine (its path): itimer's samples are symbolised against it.
	Binary string
}

// Result is a finished profile.
type Result struct {
	Summary
	Raw  string // the profiler's text output, saved locally
	Data string // the profiler's own data file, saved locally ("" when it has none)
	// Stacks are the sampled stacks, folded (they end the raw output too); none for a profiler without stacks.
	Stacks Stacks
	// Period is the CPU time one sample stands for, nominally.
	Period time.Duration
}

// install says how to get each profiler.
var install = map[string]string{
	"perf":       "install perf (Debian: apt-get install linux-perf)",
	"strace":     "install strace (Debian: apt-get install strace)",
	"callgrind":  "install valgrind (Debian: apt-get install valgrind)",
	"itimer":     "itimer is in every program built with bench-bridge's harness",
	"simpleperf": "simpleperf ships with Android 9 and later; on older devices push the NDK's simpleperf to the device's PATH",
	"sample":     "sample ships with macOS",
}

// preference is the order Run tries profilers in when none is named: the sampling profiler of the platform first;
// then the programs' own (itimer), which needs no perf events and nothing on the device; then a syscall count, which
// says nothing about user time but runs where a program without the harness cannot take --itimer.
func preference(os string) []string {
	if os == "Darwin" {
		return []string{"sample"}
	}
	return []string{"simpleperf", "perf", "itimer", "strace"}
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
// as OutDir/profile-<target>-<case>.txt (and the data file beside it) and returns the summary. Without a tool named
// it takes the device's in the platform's order, and when a sampling profiler cannot record there (no perf events
// in the kernel, none allowed) it says why and goes on to the next: itimer, which needs nothing on the device.
func Run(ctx context.Context, t targets.Target, program string, dev artifact.Device, o Options) (*Result, error) {
	tools, err := choose(ctx, t, dev, o.Tool)
	if err != nil {
		return nil, err
	}
	for i, tool := range tools {
		res, err := runTool(ctx, t, program, dev, o, tool)
		if err == nil || i == len(tools)-1 || ctx.Err() != nil {
			return res, err
		}
		fmt.Fprintf(o.Log, "%s: %s could not profile %s: %s\n", t.Name(), tool.Name, o.Case, strings.SplitN(err.Error(), "\n", 2)[0])
		fmt.Fprintf(o.Log, "%s: trying %s\n", t.Name(), tools[i+1].Name)
	}
	return nil, fmt.Errorf("%s: no profiler to run", t.Name())
}

// runTool records the loop under one tool and summarises what it recorded.
func runTool(ctx context.Context, t targets.Target, program string, dev artifact.Device, o Options, tool Tool) (*Result, error) {
	data := path.Join(path.Dir(program), "profile-"+o.Case+"."+tool.Name)
	argv := []string{program, "loop", o.Case, strconv.FormatFloat(o.Seconds, 'f', -1, 64)}
	record := tool.Record(argv, data, tool.Name == "perf" && !hasHardwareCycles(ctx, t))
	fmt.Fprintf(o.Log, "%s: profiling %s for %gs: %s\n", t.Name(), o.Case, o.Seconds, quoteArgs(record))
	emulated := ""
	if dev.Emulated {
		emulated = dev.EmulatedReason
		fmt.Fprintf(o.Log, "%s: warning: the run is emulated (%s): this profiles the emulator, not a device\n", t.Name(), dev.EmulatedReason)
	}
	if t.Capabilities().HostFiles && tool.InProcess {
		os.Remove(data) // the program's directory here is the build's cache: never read an earlier run's samples
	}
	var stdout, stderr bytes.Buffer
	recordBound := time.Duration(o.Seconds*float64(time.Second)) + recordSlack
	if err := runWithin(ctx, t, recordBound, record, &stdout, &stderr); err != nil {
		if tool.InProcess && strings.Contains(stderr.String(), "usage:") {
			return nil, fmt.Errorf("%s: %s: the program does not take --itimer: itimer profiles programs built with bench-bridge's harness (cases/c)", t.Name(), program)
		}
		return nil, fmt.Errorf("%s: %s on %s: %w\n%s%s", t.Name(), tool.Name, o.Case, err, stdout.String(), tail(stderr.String()))
	}
	base := filepath.Join(o.OutDir, "profile-"+t.Name()+"-"+o.Case)
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, err
	}
	res := &Result{Raw: base + ".txt", Period: tool.Period}
	var frames []Frame
	switch {
	case tool.InProcess:
		res.Data = base + "." + tool.Name + ".data"
		rep, err := collectInProcess(ctx, t, data, res.Data, o.Binary, emulated)
		if err != nil {
			return nil, err
		}
		for _, w := range rep.warnings {
			fmt.Fprintf(o.Log, "%s: warning: %s\n", t.Name(), w)
		}
		if err := artifact.WriteFileAtomic(res.Raw, rep.text); err != nil {
			return nil, err
		}
		frames, res.Stacks = rep.frames, rep.stacks
	case tool.Report == nil:
		// The recorded file is the text.
		if err := t.Pull(ctx, data, res.Raw); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(res.Raw)
		if err != nil {
			return nil, err
		}
		frames = tool.Parse(string(b))
	default:
		var report, rerr bytes.Buffer
		cmd := tool.Report(data)
		if err := runWithin(ctx, t, reportBound, cmd, &report, &rerr); err != nil {
			return nil, fmt.Errorf("%s: %s: %w\n%s", t.Name(), quoteArgs(cmd), err, tail(rerr.String()))
		}
		frames = tool.Parse(report.String())
		if tool.Stacks != nil {
			stacks, err := foldOnDevice(ctx, t, tool, data)
			if err != nil {
				return nil, err
			}
			res.Stacks = stacks
			fmt.Fprintln(&report, "#")
			res.Stacks.writeFolded(&report)
		}
		if err := artifact.WriteFileAtomic(res.Raw, report.Bytes()); err != nil {
			return nil, err
		}
		res.Data = base + "." + tool.Name + ".data"
		if err := t.Pull(ctx, data, res.Data); err != nil {
			return nil, err
		}
	}
	if len(frames) == 0 {
		return nil, fmt.Errorf("%s: %s recorded nothing that could be read (raw output in %s)", t.Name(), tool.Name, res.Raw)
	}
	res.Summary = Summarize(tool.Name, frames)
	res.Summary.Emulated = emulated
	return res, nil
}

// collectInProcess pulls the samples the program wrote and symbolises them against the program as built here.
func collectInProcess(ctx context.Context, t targets.Target, remote, local, program, emulated string) (*itimerReport, error) {
	if program == "" {
		return nil, fmt.Errorf("%s: itimer needs the program as built on this machine to symbolise against", t.Name())
	}
	if err := t.Pull(ctx, remote, local); err != nil {
		return nil, fmt.Errorf("%s: pulling the samples %s: %w", t.Name(), remote, err)
	}
	b, err := os.ReadFile(local)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bench-bridge-libs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir) // the symbols are read into memory
	return symbolizeItimer(local, b, program, deviceFiles(ctx, t, dir), emulated)
}

// deviceFiles finds the libraries a program mapped: on this machine the files themselves; on a device, copies pulled
// into dir (a dynamically linked program over ssh, say; the reference device programs are static), whose build IDs
// then find this machine's detached debug symbols only when they are the same build.
func deviceFiles(ctx context.Context, t targets.Target, dir string) LibFile {
	if t.Capabilities().HostFiles {
		return func(p string) string { return p }
	}
	n := 0
	return func(p string) string {
		n++
		local := filepath.Join(dir, strconv.Itoa(n)+"-"+path.Base(p))
		pctx, cancel := context.WithTimeout(ctx, probeBound)
		defer cancel()
		if t.Pull(pctx, p, local) != nil {
			return ""
		}
		return local
	}
}

// choose returns the named tool if the device has it, or the tools the device has in the platform's preference.
func choose(ctx context.Context, t targets.Target, dev artifact.Device, name string) ([]Tool, error) {
	if name != "" {
		tool, ok := Tools[name]
		if !ok {
			return nil, fmt.Errorf("unknown profiler %q (have %s)", name, strings.Join(ToolNames(), ", "))
		}
		if !tool.InProcess && !has(ctx, t, command(tool)) {
			return nil, fmt.Errorf("%s: profiler %s is not on the device: %s", t.Name(), name, install[name])
		}
		return []Tool{tool}, nil
	}
	prefs := preference(strings.Fields(dev.OS + " ")[0])
	var tools []Tool
	for _, n := range prefs {
		if Tools[n].InProcess || has(ctx, t, command(Tools[n])) {
			tools = append(tools, Tools[n])
		}
	}
	if len(tools) > 0 {
		return tools, nil
	}
	var hints []string
	for _, n := range prefs {
		hints = append(hints, n+": "+install[n])
	}
	return nil, fmt.Errorf("%s: no profiler found on the device (tried %s)\n%s", t.Name(), strings.Join(prefs, ", "), strings.Join(hints, "\n"))
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
