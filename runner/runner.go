// Package runner runs a bench program on a target, reads the samples it prints (docs/protocol.md), survives cases
// that crash or hang, and turns what it measured into an artifact.
package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/stats"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Options are the measurement settings of one run.
type Options struct {
	Cases   []string      // the cases to run, in order
	Samples int           // timed samples per case
	MinTime time.Duration // the least time one sample lasts
	Warmup  time.Duration // warm-up per case
	// Stall is how long the program may print nothing before it is taken as hung and killed.
	Stall time.Duration
	// Progress receives one line per finished case when OnEvent is nil; nil for none.
	Progress io.Writer
	// OnEvent, when set, receives every step of the run instead of Progress's lines. It is called from the goroutine
	// that reads the program's output.
	OnEvent func(Event)
	// Instructions adds each case's instructions per op, counted under valgrind's callgrind after the times.
	Instructions bool
}

// DefaultOptions are the settings a plain `bench-bridge linux` uses.
func DefaultOptions() Options {
	return Options{Samples: 10, MinTime: 50 * time.Millisecond, Warmup: 50 * time.Millisecond, Stall: 2 * time.Minute}
}

// Raw is what one program run printed: samples per case and what failed, before statistics.
type Raw struct {
	TimerOverheadNs float64
	Meta            map[string]string
	Cases           []RawCase
	Failures        []artifact.Failure
	notify          func(Event)
	sawTimer        bool // a timer_overhead_ns line came
}

// RawCase is one case's samples as the program reported them.
type RawCase struct {
	Name       string
	Iterations int64
	Ops        []int64
	Ns         []int64
	// Partial is true when the program died during the case, after printing these samples.
	Partial bool
}

// errStalled marks a program killed for printing nothing for too long.
var errStalled = errors.New("stalled")

// Measure runs program (already pushed to t) over opts.Cases. A case that crashes the program or hangs is recorded
// as a failure and the cases after it run in a new process. On a transport error or cancellation it returns what was
// measured so far with the error.
func Measure(ctx context.Context, t targets.Target, program string, opts Options) (*Raw, error) {
	raw := &Raw{Meta: map[string]string{}}
	raw.notify = func(e Event) {
		e.Target, e.Total, e.Done = t.Name(), len(opts.Cases), len(raw.Cases)+len(raw.Failures)
		switch {
		case opts.OnEvent != nil:
			opts.OnEvent(e)
		case opts.Progress != nil && e.Kind == CaseMeasured:
			fmt.Fprintf(opts.Progress, "%s: %-28s %s/op\n", e.Target, e.Case, artifact.FormatNs(e.MedianNs))
		case opts.Progress != nil && e.Kind == CaseFailed:
			fmt.Fprintf(opts.Progress, "%s: %-28s failed: %s\n", e.Target, e.Case, e.Reason)
		}
	}
	remaining := slices.Clone(opts.Cases)
	for len(remaining) > 0 {
		s := &session{raw: raw, want: remaining}
		err := s.run(ctx, t, program, opts)
		remaining = slices.DeleteFunc(remaining, func(n string) bool { return s.finished[n] })
		if err == nil {
			for _, n := range remaining {
				raw.fail(n, "the program exited without running it", "")
			}
			return raw, nil
		}
		var exit *targets.ExitError
		switch {
		case ctx.Err() != nil:
			if s.current != "" {
				raw.lose(s, "interrupted", "")
			}
			return raw, fmt.Errorf("%s: %w", t.Name(), ctx.Err())
		case errors.Is(err, errStalled):
			err = fmt.Errorf("printed nothing for %s: killed", opts.Stall)
		case errors.As(err, &exit):
			err = fmt.Errorf("program %v", exit)
		case s.protocolErr != nil:
			// The case whose output broke the protocol fails with the line; the others run in a new process.
			err = s.protocolErr
		default:
			// The transport failed: the device is gone. Name the case it took down.
			if s.current != "" {
				raw.lose(s, err.Error(), s.stderr.tail())
				return raw, fmt.Errorf("case %s: %w", s.current, err)
			}
			return raw, err
		}
		if s.current == "" {
			// It died before starting a case: no case to blame, and a retry would die the same way.
			for _, n := range remaining {
				raw.fail(n, err.Error(), s.stderr.tail())
			}
			return raw, nil
		}
		current := s.current
		raw.lose(s, err.Error(), s.stderr.tail())
		remaining = slices.DeleteFunc(remaining, func(n string) bool { return n == current })
	}
	return raw, nil
}

// lose records the case the session was in when its process died or broke the protocol: a failure, and the samples
// it had printed, kept as a partial case.
func (r *Raw) lose(s *session, reason, stderr string) {
	if s.cur != nil && len(s.cur.Ns) > 0 {
		c := *s.cur
		c.Partial = true
		r.Cases = append(r.Cases, c)
	}
	r.fail(s.current, reason, stderr)
}

func (r *Raw) fail(name, reason, stderr string) {
	r.Failures = append(r.Failures, artifact.Failure{Name: name, Reason: reason, StderrTail: stderr})
	r.emit(Event{Kind: CaseFailed, Case: name, Reason: reason})
}

// emit passes an event to the listener, if there is one.
func (r *Raw) emit(e Event) {
	if r.notify != nil {
		r.notify(e)
	}
}

// session is one process of the program: it parses the lines as they come.
type session struct {
	raw         *Raw
	want        []string
	current     string          // begun, not ended
	finished    map[string]bool // ended, or reported an error
	cur         *RawCase
	protocolErr error
	stderr      tailBuffer
	line        int
}

func (s *session) run(ctx context.Context, t targets.Target, program string, opts Options) error {
	s.finished = map[string]bool{}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(opts.Stall, func() { cancel(errStalled) })
	defer watchdog.Stop()

	args := []string{"run", "--samples", strconv.Itoa(opts.Samples), "--min-time-ns", strconv.FormatInt(opts.MinTime.Nanoseconds(), 10),
		"--warmup-ns", strconv.FormatInt(opts.Warmup.Nanoseconds(), 10)}
	args = append(args, s.want...)
	pr, pw := io.Pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			watchdog.Reset(opts.Stall)
			if s.protocolErr == nil {
				if err := s.handle(sc.Text()); err != nil {
					s.protocolErr = fmt.Errorf("bench program output, line %d: %w: %q", s.line, err, sc.Text())
					cancel(s.protocolErr)
				}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	err := t.Run(ctx, program, args, pw, &s.stderr)
	pw.Close()
	wg.Wait()
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, errStalled) {
		return errStalled
	}
	if s.protocolErr != nil {
		return s.protocolErr
	}
	return err
}

// handle applies one line of output.
func (s *session) handle(line string) error {
	s.line++
	r, err := parseLine(line)
	if err != nil {
		return err
	}
	if s.line == 1 && (r.kind != "bench-bridge-protocol" || r.a != ProtocolVersion) {
		return fmt.Errorf("want first line \"bench-bridge-protocol %d\"", ProtocolVersion)
	}
	if r.name != "" && !slices.Contains(s.want, r.name) {
		return fmt.Errorf("case %q was not asked for", r.name)
	}
	switch r.kind {
	case "meta":
		s.raw.Meta[r.key] = r.text
	case "timer_overhead_ns":
		s.raw.TimerOverheadNs, s.raw.sawTimer = r.f, true
	case "begin":
		s.current = r.name
		s.cur = &RawCase{Name: r.name}
		s.raw.emit(Event{Kind: CaseStarted, Case: r.name})
	case "calibrated":
		if s.cur == nil || s.cur.Name != r.name {
			return errors.New("calibrated outside its case")
		}
		s.cur.Iterations = r.a
	case "sample":
		if s.cur == nil || s.cur.Name != r.name {
			return errors.New("sample outside its case")
		}
		s.cur.Ops = append(s.cur.Ops, r.a)
		s.cur.Ns = append(s.cur.Ns, r.b)
	case "error":
		s.raw.fail(r.name, r.text, "")
		s.finish(r.name)
	case "end":
		if s.finished[r.name] {
			break // the end of a case that reported an error
		}
		if s.cur == nil || s.cur.Name != r.name {
			return errors.New("end outside its case")
		}
		if len(s.cur.Ns) == 0 {
			s.raw.fail(r.name, "no samples", "")
		} else {
			s.raw.Cases = append(s.raw.Cases, *s.cur)
			s.report(s.cur)
		}
		s.finish(r.name)
	}
	return nil
}

func (s *session) finish(name string) {
	s.finished[name] = true
	if s.current == name {
		s.current, s.cur = "", nil
	}
}

// report tells the listener about a measured case.
func (s *session) report(c *RawCase) {
	var ns []float64
	for i := range c.Ns {
		ns = append(ns, float64(c.Ns[i])/float64(c.Ops[i]))
	}
	s.raw.emit(Event{Kind: CaseMeasured, Case: c.Name, MedianNs: stats.Median(ns)})
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
