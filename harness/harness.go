// Package harness is bench-bridge's harness for a bench program written in Go: it speaks the bench program protocol
// (version 2, docs/protocol.md) exactly as the C harness in cases/c does, so that a Go program measures its cases with
// no line of protocol of its own. The program says what it is and registers its cases, each a name of the catalogue
// and a set-up that returns the case's timed loop, and calls Main:
//
//	func main() {
//		harness.Main(harness.Program{Engine: "goja " + version, Codec: "mine", Cases: []harness.Case{
//			{Name: "script_to_host_scalar", Setup: setupScalar},
//		}})
//	}
//
// Main parses the command line (list, run and loop, with every flag of protocol 2), measures the timer, warms up,
// calibrates, takes the samples with a sample of the --ref case beside each, applies --slowdown's busy work at every
// crossing (Crossing, which the host-side work below calls), runs the memory pass and prints every record.
//
// Besides the protocol, the package holds what every program shares so that they differ only in how a value crosses:
// the cases' JavaScript (Prelude, Script, Bytes), the host-side work of every host function (Add, Upper, ObjHost,
// Sum, the UI table, BytesSum, RecordHost, FailMessage) and the checks a set-up runs (CheckAdd and the others), and,
// for a program over a JavaScript engine, the set-ups and timed loops of the whole catalogue (JSCases, the Go form of
// cases/c/case_loops.h).
package harness

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/cases"
)

// Program is a bench program: what it says of itself in its meta lines, and its cases.
type Program struct {
	// Kind is "bridge" (a bridge of yours; the default) or "floor": `meta program`.
	Kind string
	// Engine is the engine's name and version, "goja 0.0.0-20260311135729-065cd970411c": `meta engine`.
	Engine string
	// Codec names how values cross in a bridge (`meta codec`); "" for none.
	Codec string
	// Meta are further `meta KEY VALUE` lines, in order.
	Meta [][2]string
	// Cases are the program's cases, in the order `run` without case names runs them (the catalogue's, usually).
	Cases []Case
	// Missing are the catalogue's cases the program lacks, each with why: `meta not_implemented.CASE REASON`, which
	// the artifact keeps beside the case.
	Missing []Missing
}

// Case is one case of a program: a name of the catalogue (bench-bridge cases lists them) and its set-up.
type Case struct {
	Name string
	// Setup makes what the case needs, outside the timed region, checks it and returns the timed loop. An error (or
	// a panic) fails the case with an `error` record; the next case runs.
	Setup func() (Loop, error)
}

// Loop is a case set up: its timed loop and what frees it.
type Loop struct {
	// Run runs n loop units: n ops, or n frames of 16 for the ui_ops_* cases (the catalogue's unit_ops). An error
	// (or a panic) fails the case.
	Run func(n uint64) error
	// Close frees what Setup made; nil when nothing needs freeing.
	Close func()
}

// Missing is a case of the catalogue a program lacks, and why.
type Missing struct {
	Case, Why string
}

// Kinds of program.
const (
	Bridge = "bridge"
	Floor  = "floor"
)

// maxUnits is Google Benchmark's cap on iterations, as the C harness's.
const maxUnits = 1_000_000_000

// Main runs the program on the command line and exits with its status.
func Main(p Program) {
	os.Exit(Run(p, os.Args[1:], os.Stdout, os.Stderr))
}

// Run runs the program with the arguments of a command line (without the program's name), printing the records on
// stdout and diagnostics on stderr, and returns the exit status: 0, 1 when `loop`'s case failed, 2 for bad usage.
func Run(p Program, args []string, stdout, stderr io.Writer) int {
	// One goroutine on one thread runs every case: the timed loops never move between threads, and the cpu record
	// names the core they start on.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h := &harness{p: p, out: bufio.NewWriter(stdout), stderr: stderr, name: programName(p)}
	defer h.out.Flush()
	if len(args) == 0 {
		return h.usage()
	}
	switch args[0] {
	case "list":
		if len(args) != 1 {
			return h.usage()
		}
		for _, c := range p.Cases {
			h.line("%s", c.Name)
		}
		return 0
	case "run":
		return h.run(args[1:])
	case "loop":
		return h.loop(args[1:])
	}
	fmt.Fprintf(stderr, "%s: unknown command: %s\n", h.name, args[0])
	return h.usage()
}

// harness is one run of a program.
type harness struct {
	p      Program
	out    *bufio.Writer
	stderr io.Writer
	name   string // the program's name in messages: its kind
	o      options
	beside struct { // the --ref case, set up once per process and calibrated once
		c    *Case
		loop Loop
		n    uint64
	}
}

// options are the flags of `run` (docs/protocol.md).
type options struct {
	minTimeNs, samples, warmupNs uint64
	warmupSet                    bool
	units                        uint64  // --ops: loop units per sample, fixed (no calibration); 0 to calibrate
	ref                          string  // --ref: the case sampled beside every sample of the others; "" for none
	slowdown                     float64 // --slowdown: busy work per crossing, as a share of the case's own cost
	slowdownSteps                uint64  // --slowdown-steps: a fixed amount of it, for instruction counts
}

func programName(p Program) string {
	if p.Kind == "" {
		return Bridge
	}
	return p.Kind
}

// line prints one record and flushes it, so that a program that dies loses nothing it printed.
func (h *harness) line(format string, args ...any) {
	fmt.Fprintf(h.out, format, args...)
	h.out.WriteByte('\n')
	h.out.Flush()
}

func (h *harness) usage() int {
	n := h.name
	fmt.Fprintf(h.stderr, "usage: %s list\n"+
		"       %s run [--min-time-ns N] [--samples N] [--warmup-ns N] [--ops N] [--ref CASE]\n"+
		"           [--slowdown SHARE | --slowdown-steps N] [CASE ...]\n"+
		"       %s loop CASE SECONDS\n", n, n, n)
	return 2
}

// header prints the protocol's first line, the meta lines, timer_overhead_ns and the cpu record.
func (h *harness) header() {
	p := h.p
	h.line("bench-bridge-protocol 2")
	h.line("meta program %s", programName(p))
	if p.Codec != "" {
		h.line("meta codec %s", oneLine(p.Codec))
	}
	if p.Engine != "" {
		h.line("meta engine %s", oneLine(p.Engine))
	}
	for _, kv := range p.Meta {
		h.line("meta %s %s", kv[0], oneLine(kv[1]))
	}
	h.line("meta compiler %s", runtime.Version())
	for _, m := range p.Missing {
		h.line("meta not_implemented.%s %s", m.Case, oneLine(m.Why))
	}
	h.line("timer_overhead_ns %d", timerOverhead())
	if cpu, ok := currentCPU(); ok {
		h.line("cpu %d", cpu)
	}
}

// oneLine keeps a message on its line.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}

// parseFlag reads the flag at args[*i] (--name N or --name=N) into h.o; false after a message on stderr.
func (h *harness) parseFlag(args []string, i *int) bool {
	arg := args[*i]
	name, val, inline := strings.Cut(arg, "=")
	if !inline {
		if *i+1 >= len(args) {
			if isFlag(name) {
				fmt.Fprintf(h.stderr, "%s: %s needs a value\n", h.name, name)
			} else {
				fmt.Fprintf(h.stderr, "%s: unknown flag: %s\n", h.name, arg)
			}
			return false
		}
		if !isFlag(name) {
			fmt.Fprintf(h.stderr, "%s: unknown flag: %s\n", h.name, arg)
			return false
		}
		*i++
		val = args[*i]
	}
	switch name {
	case "--ref":
		h.o.ref = val
		return true
	case "--slowdown":
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || !(v >= 0 && v <= 10) {
			fmt.Fprintf(h.stderr, "%s: --slowdown: want a share between 0 and 10, like 0.10: %s\n", h.name, val)
			return false
		}
		h.o.slowdown = v
		return true
	}
	dst := map[string]*uint64{"--min-time-ns": &h.o.minTimeNs, "--samples": &h.o.samples, "--warmup-ns": &h.o.warmupNs,
		"--ops": &h.o.units, "--slowdown-steps": &h.o.slowdownSteps}[name]
	if dst == nil {
		fmt.Fprintf(h.stderr, "%s: unknown flag: %s\n", h.name, arg)
		return false
	}
	v, err := strconv.ParseUint(val, 10, 64)
	if err != nil || val == "" || val[0] < '0' || val[0] > '9' {
		fmt.Fprintf(h.stderr, "%s: %s: not a non-negative integer: %s\n", h.name, name, val)
		return false
	}
	*dst = v
	if name == "--warmup-ns" {
		h.o.warmupSet = true
	}
	return true
}

// isFlag says whether name is a flag of run.
func isFlag(name string) bool {
	switch name {
	case "--min-time-ns", "--samples", "--warmup-ns", "--ops", "--ref", "--slowdown", "--slowdown-steps":
		return true
	}
	return false
}

// run is the run command: every case named (every case of the program when none is), one after another.
func (h *harness) run(args []string) int {
	h.o = options{minTimeNs: 50_000_000, samples: 10}
	var names []string
	for i := 0; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "--") {
			names = append(names, args[i])
		} else if !h.parseFlag(args, &i) {
			return 2
		}
	}
	o := &h.o
	switch {
	case o.samples == 0:
		fmt.Fprintf(h.stderr, "%s: --samples must be at least 1\n", h.name)
		return 2
	case o.units > maxUnits:
		fmt.Fprintf(h.stderr, "%s: --ops must be at most %d\n", h.name, maxUnits)
		return 2
	case o.units > 0 && (o.ref != "" || o.slowdown > 0):
		fmt.Fprintf(h.stderr, "%s: --ref and --slowdown need calibrated runs, not --ops\n", h.name)
		return 2
	case o.slowdown > 0 && o.slowdownSteps > 0:
		fmt.Fprintf(h.stderr, "%s: --slowdown and --slowdown-steps exclude each other\n", h.name)
		return 2
	}
	if !o.warmupSet {
		o.warmupNs = o.minTimeNs
	}
	if os.Getenv("BB_EXTRA_ALLOC") == "1" {
		extraAlloc = 1
	}
	defer func() { extraAlloc = 0 }()
	h.header()
	if o.ref != "" {
		h.besideSetup()
	}
	if len(names) == 0 {
		for _, c := range h.p.Cases {
			names = append(names, c.Name)
		}
	}
	for _, name := range names {
		h.runCase(name)
	}
	if h.beside.c != nil {
		closeLoop(h.beside.loop)
	}
	if rss, ok := peakRSS(); ok {
		h.line("rss %d", rss)
	}
	return 0
}

// find returns the program's case of that name, or nil.
func (h *harness) find(name string) *Case {
	for i := range h.p.Cases {
		if h.p.Cases[i].Name == name {
			return &h.p.Cases[i]
		}
	}
	return nil
}

// unitOps is the ops one loop unit of a case makes: the catalogue's unit_ops, one for a case it does not have.
func unitOps(name string) uint64 {
	if c, ok := cases.Lookup(name); ok {
		return uint64(c.UnitOps)
	}
	return 1
}

// loop is the loop command: one case for SECONDS seconds, in chunks of about 10 ms, for a profiler; then one loop
// record. The Go harness has no sampler of its own: --itimer is refused with the usage, as the protocol asks of a
// program without it.
func (h *harness) loop(args []string) int {
	const chunkNs = 10_000_000
	if len(args) != 2 {
		return h.usage()
	}
	c := h.find(args[0])
	if c == nil {
		fmt.Fprintf(h.stderr, "%s: unknown case: %s\n", h.name, args[0])
		return 2
	}
	secs, err := strconv.ParseFloat(args[1], 64)
	if err != nil || !(secs > 0) || secs > 1e6 {
		fmt.Fprintf(h.stderr, "%s: SECONDS must be a positive number: %s\n", h.name, args[1])
		return 2
	}
	limit := uint64(secs * 1e9)
	l, err := setup(c)
	if err != nil {
		h.errorRecord(c.Name, err)
		return 1
	}
	defer closeLoop(l)
	unit := unitOps(c.Name)
	var n, total, elapsed uint64 = 1, 0, 0
	start := now()
	for elapsed < limit {
		ns, ops, err := timed(l, n, unit)
		if err != nil {
			h.errorRecord(c.Name, err)
			return 1
		}
		total += ops
		if ns < chunkNs {
			n = nextUnits(n, ns, chunkNs)
		}
		elapsed = now() - start
	}
	h.line("loop %s %d %d", c.Name, total, elapsed)
	return 0
}

// errorRecord prints one `error CASE MESSAGE` record.
func (h *harness) errorRecord(name string, err error) {
	msg := "failed"
	if err != nil && err.Error() != "" {
		msg = err.Error()
	}
	h.line("error %s %s", name, oneLine(msg))
}
