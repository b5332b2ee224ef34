// Package runner runs a bench program on a target, reads the samples it prints (docs/protocol.md), survives cases
// that crash or hang, and turns what it measured into an artifact.
package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/textsafe"
	"github.com/bench-bridge/bench-bridge/stats"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Options are the measurement settings of one run.
type Options struct {
	Cases   []string      // the cases to run; each process runs them in its own order
	Samples int           // timed samples per case per process
	MinTime time.Duration // the least time one sample lasts
	Warmup  time.Duration // warm-up per case
	// Runs is how many processes of the program a run makes (Kalibera and Jones: the variance is between them).
	Runs int
	// Seed draws the case orders of the processes; 0 draws a seed.
	Seed uint64
	// Slowdown, when positive, makes the program add busy work worth that share of each case's own cost per
	// crossing (protocol 2's --slowdown): the gate's A/B proof.
	Slowdown float64
	// SlowdownSteps, when positive, adds a fixed number of busy-work steps per crossing instead (--slowdown-steps):
	// the same instructions on every machine, for the instruction-count A/B proof.
	SlowdownSteps int
	// Stall is how long the program may print nothing before it is taken as hung and killed.
	Stall time.Duration
	// CaseTimeout is the longest one case may take, from its begin to the next case's (or the program's exit),
	// however much it prints; 0 means caseTimeout's default.
	CaseTimeout time.Duration
	// Progress receives one line per finished case when OnEvent is nil; nil for none.
	Progress io.Writer
	// OnEvent, when set, receives every step of the run instead of Progress's lines. It is called from the goroutine
	// that reads the program's output.
	OnEvent func(Event)
	// Instructions adds each case's instructions per op, counted under valgrind's callgrind after the times.
	Instructions bool
	// CPU pins the program to a core (its number), or to the big or little cores; "" leaves it unpinned.
	CPU string
	// LockClocks holds the clusters of the pinned cores (every cluster when unpinned) at one frequency for the run,
	// and gives the device's settings back after it.
	LockClocks bool
	// Cooldown, when positive, is how long the device rests before each marked process is measured again
	// (stats.MarkProcesses); 0 keeps marked processes as they are.
	Cooldown time.Duration
}

// DefaultRuns and DefaultSamples are the processes per run of a plain `bench-bridge linux` and the samples per case
// in each: the variance lies between processes, so a run buys processes with samples
// (docs/method.md#processes-not-samples).
const (
	DefaultRuns    = 10
	DefaultSamples = 3
)

// DefaultOptions are the settings a plain `bench-bridge linux` uses.
func DefaultOptions() Options {
	return Options{Samples: DefaultSamples, MinTime: 10 * time.Millisecond, Warmup: 10 * time.Millisecond, Runs: DefaultRuns,
		Stall: 2 * time.Minute}
}

// Raw is what the processes of one program printed: samples per case per process and what failed, before
// statistics.
type Raw struct {
	Meta      map[string]string
	Processes []RawProcess
	Failures  []artifact.Failure
	notify    func(Event)
	sawTimer  bool // a timer_overhead_ns line came
	// DiedAtExit says, for each process that died after its last case, which and how ("process 3: program signal
	// SIGSEGV").
	DiedAtExit []string
	// Added counts the processes the session measured beyond those asked for, to have enough in the device's fastest
	// state (Session.fill); they are the last of Processes.
	Added int
}

// RawProcess is one process: its case order and the cases it measured, in the order they ran.
type RawProcess struct {
	Seq             int // position in the session
	Order           []string
	Protocol        int
	TimerOverheadNs float64
	// PeakRSSBytes is the rss record's peak resident set size; 0 when the process printed none.
	PeakRSSBytes int64
	// CPU is the core the program said it started on (its first cpu record), else the one core it was pinned to;
	// nil when neither is known.
	CPU *int
	// Start and End are the device's state read just before the process started and just after it ended; nil
	// when the target cannot read it.
	Start, End *targets.State
	// Retries counts the times the process was measured again after a cooldown because it was marked.
	Retries int
	Cases   []RawCase
}

// RawCase is one case's samples in one process as the program reported them.
type RawCase struct {
	Name       string
	Iterations int64
	Ops        []int64
	Ns         []int64
	// RefOps and RefNs are the --ref samples taken beside this case's (protocol 2).
	RefOps, RefNs []int64
	// SlowdownNs and SlowdownBaseNs are the slowdown record: the work added per op and the cost it was set against.
	SlowdownNs, SlowdownBaseNs float64
	// Memory is the case's memory record, when the program printed one.
	Memory *artifact.ProcessMemory
	// Partial is true when the program died during the case, after printing these samples.
	Partial bool
}

// errStalled marks a program killed for printing nothing for too long.
var errStalled = errors.New("stalled")

// errCaseTimeout marks a program killed for spending longer on one case than its deadline.
var errCaseTimeout = errors.New("over the case deadline")

// The bounds on what one process of a bench program may print, beyond the line cap (MaxLine): each is named in the
// error that a program over it gets.
const (
	// sampleCapFactor times --samples is the most sample (or ref) records one case may print.
	sampleCapFactor = 4
	// maxOutsideLines is the most lines a process may print outside its cases (meta, timer_overhead_ns, rss).
	maxOutsideLines = 1000
	// maxMetaKeys is the most distinct meta keys a run keeps, and maxText the longest meta value or error message.
	maxMetaKeys = 100
	maxText     = 4096
)

// caseTimeout is o.CaseTimeout, or by default the stall timeout plus ten times what a case's warm-up, calibration
// and samples (each with its ref sample) should take: a program that keeps printing cannot run a case for ever.
func (o Options) caseTimeout() time.Duration {
	if o.CaseTimeout > 0 {
		return o.CaseTimeout
	}
	return o.Stall + 10*(o.Warmup+time.Duration(2*max(o.Samples, 1)+10)*o.MinTime)
}

// sampleCap is the most sample records one case may print: a multiple of --samples.
func (o Options) sampleCap() int { return sampleCapFactor * max(o.Samples, 1) }

// measure runs program (already pushed to t) as opts.Runs processes over opts.Cases, each in its own order drawn from
// opts.Seed: the raw samples alone, without an artifact. A case that crashes the program or hangs is recorded as a failure and left out of the later processes;
// the cases after it run in a new process. On a transport error or cancellation it returns what was measured so far
// with the error.
func measure(ctx context.Context, t targets.Target, remote string, opts Options) (*Raw, error) {
	m := newMeasurement(t, remote, opts)
	for run := range max(opts.Runs, 1) {
		if err := m.Process(ctx, run, CaseOrder(opts.Seed, run, opts.Cases)); err != nil {
			return m.Raw, err
		}
	}
	return m.Raw, nil
}

// CaseOrder is the case order of process seq of a session seeded with seed: names as given for the first process
// (a run of one process runs them as asked), a shuffle of them for the others.
func CaseOrder(seed uint64, seq int, names []string) []string {
	out := slices.Clone(names)
	if seq == 0 {
		return out
	}
	r := rand.New(rand.NewPCG(seed, uint64(seq)))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// NewSeed draws a seed for the case orders.
func NewSeed() uint64 { return rand.Uint64() }

// measurement collects the processes of one program; a session interleaves the measurements of its programs.
type measurement struct {
	Raw    *Raw
	target targets.Target
	remote string
	opts   Options
	// protocol is the version the program spoke, 0 until its first process.
	protocol int
	// total counts the case runs asked for so far, for progress.
	total, done int
	// pinned is the one core the program is pinned to, nil when it is not pinned to one.
	pinned *int
	// log receives warnings about the device's state.
	log         io.Writer
	stateWarned bool
}

// newMeasurement prepares to run the program at remote, its binary pushed to t, with opts.
func newMeasurement(t targets.Target, remote string, opts Options) *measurement {
	m := &measurement{Raw: &Raw{Meta: map[string]string{}}, target: t, remote: remote, opts: opts,
		total: max(opts.Runs, 1) * len(opts.Cases), log: io.Discard}
	m.Raw.notify = func(e Event) {
		e.Target, e.Total, e.Done = t.Name(), m.total, m.done
		switch {
		case opts.OnEvent != nil:
			opts.OnEvent(e)
		case opts.Progress != nil && e.Kind == CaseMeasured:
			fmt.Fprintf(opts.Progress, "%s: %-28s %s/op\n", e.Target, e.Case, artifact.FormatNs(e.MedianNs))
		case opts.Progress != nil && e.Kind == CaseFailed:
			fmt.Fprintf(opts.Progress, "%s: %-28s failed: %s\n", e.Target, e.Case, e.Reason)
		}
	}
	return m
}

// Protocol is the protocol version the program spoke; 0 before its first process.
func (m *measurement) Protocol() int { return m.protocol }

// failed reports whether name failed in an earlier process.
func (m *measurement) failed(name string) bool {
	return slices.ContainsFunc(m.Raw.Failures, func(f artifact.Failure) bool { return f.Name == name })
}

// runProcess runs one process of the program over order (cases that failed before are left out), as position seq
// of the session. A crash or a stall fails the case it hit and runs the rest in a new process, recorded as the same
// one.
func (m *measurement) runProcess(ctx context.Context, seq int, order []string) error {
	raw := m.Raw
	remaining := slices.DeleteFunc(slices.Clone(order), func(n string) bool { return m.failed(n) || !slices.Contains(m.opts.Cases, n) })
	m.done += len(order) - len(remaining)
	raw.Processes = append(raw.Processes, RawProcess{Seq: seq, Order: slices.Clone(remaining)})
	proc := &raw.Processes[len(raw.Processes)-1]
	for len(remaining) > 0 {
		s := &osProcess{m: m, proc: proc}
		s.want, s.refFirst = m.batch(remaining)
		err := s.run(ctx)
		if err != nil && m.protocol == 0 && s.line == 0 && isUsageExit(err) {
			// A protocol 1 program that refuses protocol 2's flags: ask again without them.
			m.protocol = 1
			if m.opts.Slowdown > 0 || m.opts.SlowdownSteps > 0 {
				return fmt.Errorf("%s: the program speaks protocol 1: --slowdown needs a program that speaks protocol 2 (docs/protocol.md)", m.target.Name())
			}
			continue
		}
		remaining = slices.DeleteFunc(remaining, func(n string) bool { return s.g.Done(n) })
		if err == nil {
			// What the batch asked for and the program did not run fails; the rest runs in the next batch.
			remaining = slices.DeleteFunc(remaining, func(n string) bool {
				if !slices.Contains(s.want, n) {
					return false
				}
				raw.fail(n, "the program exited without running it", "")
				m.done++
				return true
			})
			continue
		}
		var exit *targets.ExitError
		switch {
		case ctx.Err() != nil:
			if s.g.Current() != "" {
				raw.lose(s, "interrupted", "")
			}
			return fmt.Errorf("%s: %w", m.target.Name(), ctx.Err())
		case errors.Is(err, errStalled):
			err = fmt.Errorf("printed nothing for %s: killed", m.opts.Stall)
		case errors.Is(err, errCaseTimeout) && s.g.Current() != "":
			err = fmt.Errorf("ran longer than the case deadline of %s (--stall-timeout plus ten times its warm-up and samples): killed", m.opts.caseTimeout().Round(time.Millisecond))
		case errors.Is(err, errCaseTimeout):
			err = fmt.Errorf("ran for %s, the case deadline, without starting a case: killed", m.opts.caseTimeout().Round(time.Millisecond))
		case errors.As(err, &exit):
			err = fmt.Errorf("program %v", exit)
		case s.protocolErr != nil:
			// The case whose output broke the protocol fails with the line; the others run in a new process.
			err = s.protocolErr
		default:
			// The transport failed: the device is gone. Name the case it took down.
			if s.g.Current() != "" {
				raw.lose(s, err.Error(), s.stderr.tail())
				return fmt.Errorf("case %s: %w", s.g.Current(), err)
			}
			return err
		}
		if s.g.Current() == "" && len(remaining) == 0 {
			// It died on its way out, after its last case (a static destructor, an engine left running at exit):
			// what it measured stands, and the artifact says how it ended.
			raw.DiedAtExit = append(raw.DiedAtExit, fmt.Sprintf("process %d: %v", seq, err))
			continue
		}
		if s.g.Current() == "" {
			// It died before starting a case: no case to blame, and a retry would die the same way.
			for _, n := range remaining {
				raw.fail(n, err.Error(), s.stderr.tail())
				m.done++
			}
			m.total -= len(remaining) * max(max(m.opts.Runs, 1)-1-seq, 0)
			return nil
		}
		current := s.g.Current()
		raw.lose(s, err.Error(), s.stderr.tail())
		m.done++
		remaining = slices.DeleteFunc(remaining, func(n string) bool { return n == current })
	}
	return nil
}

// batch is what the next OS process of a process runs, of the cases still to run in it: all of them, or, for a
// protocol 1 program, the next case after ref_js_loop, so that each case's ratio is against ref samples timed just
// before its own rather than anywhere in a process of every case (docs/method.md#a-program-of-your-own-protocol-1-and-2).
// refFirst says that the batch runs ref_js_loop for the case after it.
func (m *measurement) batch(remaining []string) (want []string, refFirst bool) {
	if m.protocol != 1 || !slices.Contains(m.opts.Cases, cases.RefCase) || m.failed(cases.RefCase) {
		return remaining, false
	}
	for _, n := range remaining {
		if n != cases.RefCase {
			return []string{cases.RefCase, n}, true
		}
	}
	return remaining, false
}

// slowdownArgs are the program's flags for the busy work asked for.
func (o Options) slowdownArgs() []string {
	switch {
	case o.Slowdown > 0:
		return []string{"--slowdown", strconv.FormatFloat(o.Slowdown, 'g', -1, 64)}
	case o.SlowdownSteps > 0:
		return []string{"--slowdown-steps", strconv.Itoa(o.SlowdownSteps)}
	}
	return nil
}

// isUsageExit reports whether err is the exit status 2 a program gives for flags it does not know.
func isUsageExit(err error) bool {
	var exit *targets.ExitError
	return errors.As(err, &exit) && exit.Status == 2
}

// lose records the case the process was in when it died or broke the protocol: a failure, and the samples
// it had printed, kept as a partial case.
func (r *Raw) lose(s *osProcess, reason, stderr string) {
	if s.cur != nil && len(s.cur.Ns) > 0 {
		c := *s.cur
		c.Partial = true
		s.proc.Cases = append(s.proc.Cases, c)
	}
	r.fail(s.g.Current(), reason, stderr)
}

func (r *Raw) fail(name, reason, stderr string) {
	if !slices.ContainsFunc(r.Failures, func(f artifact.Failure) bool { return f.Name == name }) {
		r.Failures = append(r.Failures, artifact.Failure{Name: name, Reason: reason, StderrTail: stderr})
	}
	// The reason can hold a program's own text: a display shows it on a terminal.
	r.emit(Event{Kind: CaseFailed, Case: name, Reason: textsafe.Line(reason)})
}

// emit passes an event to the listener, if there is one.
func (r *Raw) emit(e Event) {
	if r.notify != nil {
		r.notify(e)
	}
}

// osProcess is one OS process of the program: it parses the lines as they come.
type osProcess struct {
	m           *measurement
	proc        *RawProcess
	want        []string
	g           Grammar // the order of the records: the case begun and not ended, the cases done
	cur         *RawCase
	protocolErr error
	stderr      tailBuffer
	line        int
	outside     int         // lines outside a case, for maxOutsideLines
	deadline    *time.Timer // the case deadline, restarted at each begin
	// refFirst is set when the process runs ref_js_loop for the case after it (a protocol 1 program's batch):
	// the ref's samples become that case's ref samples, and the ref is kept as a case of its own only the first
	// time the process measures it.
	refFirst      bool
	refOps, refNs []int64
}

// args is the command line of one process: protocol 2's flags unless the program speaks protocol 1.
func (s *osProcess) args() []string {
	o := s.m.opts
	args := []string{"run", "--samples", strconv.Itoa(o.Samples), "--min-time-ns", strconv.FormatInt(o.MinTime.Nanoseconds(), 10),
		"--warmup-ns", strconv.FormatInt(o.Warmup.Nanoseconds(), 10)}
	if s.m.protocol != 1 {
		if slices.Contains(o.Cases, cases.RefCase) {
			args = append(args, "--ref", cases.RefCase)
		}
		args = append(args, o.slowdownArgs()...)
	}
	return append(args, s.want...)
}

func (s *osProcess) run(ctx context.Context) error {
	s.g = Grammar{Want: s.want, Version: s.m.protocol}
	stall := s.m.opts.Stall
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer watchdog.Stop()
	// The stall timer restarts at every line; this one only at a case's begin, so that a program that keeps
	// printing (an endless stream of samples or meta lines) still ends.
	s.deadline = time.AfterFunc(s.m.opts.caseTimeout(), func() { cancel(errCaseTimeout) })
	defer s.deadline.Stop()

	pr, pw := io.Pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), MaxLine)
		for sc.Scan() {
			watchdog.Reset(stall)
			if s.protocolErr == nil {
				if err := s.handle(sc.Text()); err != nil {
					s.protocolErr = fmt.Errorf("bench program output, line %d: %w: %q", s.line, err, clip(sc.Text()))
					cancel(s.protocolErr)
				}
			}
		}
		if err := sc.Err(); err != nil && s.protocolErr == nil {
			s.protocolErr = fmt.Errorf("bench program output, line %d: longer than the line cap of %d MiB", s.line+1, MaxLine>>20)
			cancel(s.protocolErr)
		}
		io.Copy(io.Discard, pr)
	}()
	err := s.m.target.Run(ctx, s.m.remote, s.args(), pw, &s.stderr)
	pw.Close()
	wg.Wait()
	if cause := context.Cause(ctx); errors.Is(cause, errStalled) || errors.Is(cause, errCaseTimeout) {
		return cause
	}
	if s.protocolErr != nil {
		return s.protocolErr
	}
	return err
}

// handle applies one line of output.
func (s *osProcess) handle(line string) error {
	s.line++
	r, err := parseLine(line)
	if err != nil {
		return err
	}
	if s.line == 1 {
		if r.kind != "bench-bridge-protocol" || r.a < 1 || r.a > ProtocolVersion {
			return fmt.Errorf("want first line \"bench-bridge-protocol N\" with N 1 to %d", ProtocolVersion)
		}
		s.m.protocol, s.proc.Protocol, s.g.Version = int(r.a), int(r.a), int(r.a)
		return nil
	}
	wasDone := s.g.Done(r.name)
	if err := s.check(r); err != nil {
		return err
	}
	switch r.kind {
	case "meta":
		s.m.Raw.Meta[r.key] = r.text
	case "timer_overhead_ns":
		s.proc.TimerOverheadNs, s.m.Raw.sawTimer = r.f, true
	case "begin":
		s.cur = &RawCase{Name: r.name}
		s.deadline.Reset(s.m.opts.caseTimeout())
		s.m.Raw.emit(Event{Kind: CaseStarted, Case: r.name})
	case "rss":
		s.proc.PeakRSSBytes = r.a
	case "cpu":
		if s.proc.CPU == nil {
			core := int(r.a)
			s.proc.CPU = &core
		}
	case "calibrated", "sample", "ref", "slowdown", "memory":
		s.cur.apply(r)
	case "error":
		s.m.done++
		s.m.Raw.fail(r.name, clip(r.text), "")
		s.finish(r.name)
	case "end":
		if wasDone {
			break // the end of a case that reported an error
		}
		if s.refFirst && s.besideEnd() {
			break
		}
		s.m.done++
		if len(s.cur.Ns) == 0 {
			s.m.Raw.fail(r.name, "no samples", "")
		} else {
			s.proc.Cases = append(s.proc.Cases, *s.cur)
			s.report(s.cur)
		}
		s.finish(r.name)
	}
	return nil
}

// besideEnd handles the end of a case of a batch that runs ref_js_loop first: the ref's samples are kept for the
// case after it, and the case gets them as its ref samples. It reports whether the end is done with: the ref's end
// when the process has already measured the ref as a case of its own.
func (s *osProcess) besideEnd() bool {
	if s.cur.Name == cases.RefCase {
		s.refOps, s.refNs = s.cur.Ops, s.cur.Ns
		if slices.ContainsFunc(s.proc.Cases, func(c RawCase) bool { return c.Name == cases.RefCase }) {
			s.finish(cases.RefCase)
			return true
		}
		return false
	}
	s.cur.RefOps, s.cur.RefNs = s.refOps, s.refNs
	return false
}

// check refuses a record that does not fit where it came, by the protocol's grammar (Grammar), and output over the
// bounds: more lines outside a case than maxOutsideLines, more meta keys than maxMetaKeys, more samples than the
// sample cap.
func (s *osProcess) check(r record) error {
	switch {
	case !NamesCase(r.kind):
		if s.outside++; s.outside > maxOutsideLines {
			return fmt.Errorf("more than %d lines outside a case (the cap on meta lines)", maxOutsideLines)
		}
		if _, known := s.m.Raw.Meta[r.key]; r.kind == "meta" && !known && len(s.m.Raw.Meta) >= maxMetaKeys {
			return fmt.Errorf("more than %d meta keys (the cap on meta keys)", maxMetaKeys)
		}
		if len(r.text) > maxText {
			return fmt.Errorf("meta %s: a value of %d bytes, over the cap of %d", r.key, len(r.text), maxText)
		}
	case r.kind == "sample" || r.kind == "ref":
		inCase := s.cur != nil && s.cur.Name == r.name
		if inCase && ((r.kind == "sample" && len(s.cur.Ns) >= s.m.opts.sampleCap()) || (r.kind == "ref" && len(s.cur.RefNs) >= s.m.opts.sampleCap())) {
			return fmt.Errorf("more than %d %s records in case %s (the sample cap, %d times --samples)", s.m.opts.sampleCap(), r.kind, r.name, sampleCapFactor)
		}
	}
	return s.g.Next(r.kind, r.name)
}

// clip shortens program text that goes into an error or a failure to maxText bytes.
func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	return strings.ToValidUTF8(s[:maxText], "") + "..."
}

// apply adds one record of the case's own to it.
func (c *RawCase) apply(r record) {
	switch r.kind {
	case "calibrated":
		c.Iterations = r.a
	case "sample":
		c.Ops, c.Ns = append(c.Ops, r.a), append(c.Ns, r.b)
	case "ref":
		c.RefOps, c.RefNs = append(c.RefOps, r.a), append(c.RefNs, r.b)
	case "slowdown":
		c.SlowdownNs, c.SlowdownBaseNs = r.f, r.g
	case "memory":
		c.Memory = r.mem
	}
}

func (s *osProcess) finish(name string) {
	s.g.finish(name)
	if s.cur != nil && s.cur.Name == name {
		s.cur = nil
	}
}

// report tells the listener about a measured case.
func (s *osProcess) report(c *RawCase) {
	var ns []float64
	for i := range c.Ns {
		ns = append(ns, float64(c.Ns[i])/float64(c.Ops[i]))
	}
	s.m.Raw.emit(Event{Kind: CaseMeasured, Case: c.Name, MedianNs: stats.Median(ns)})
}

// tailBuffer keeps the last few KiB written to it: enough stderr to say why a program died.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 4096

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = t.buf[len(t.buf)-tailMax:]
	}
	return len(p), nil
}

func (t *tailBuffer) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
