package runner

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/targets"
)

// protocol1Target answers as a protocol 1 program that refuses protocol 2's flags would, and records the cases of
// every run. The k-th run that measures prints ref_js_loop at 10 ns per op times k and every other case at 50 ns
// per op times k, so that a ratio of 5 is only found against the ref of the case's own run.
type protocol1Target struct {
	mu       sync.Mutex
	runs     []string // the cases of every run of cases, space separated; "refused" for a run refused for its flags
	measured int      // the runs that measured
}

func (p *protocol1Target) Name() string                                 { return "v1" }
func (p *protocol1Target) Capabilities() targets.Capabilities           { return targets.Capabilities{} }
func (p *protocol1Target) Platform() targets.Platform                   { return targets.Platform{} }
func (p *protocol1Target) Push(context.Context, string) (string, error) { return "prog", nil }
func (p *protocol1Target) Pull(context.Context, string, string) error   { return nil }
func (p *protocol1Target) Device(context.Context) (artifact.Device, error) {
	return artifact.Device{}, nil
}
func (p *protocol1Target) Close() error { return nil }

func (p *protocol1Target) Run(_ context.Context, _ string, args []string, stdout, _ io.Writer) error {
	var names []string
	for i := 1; i < len(args); i++ {
		switch {
		case args[i] == "--ref" || args[i] == "--slowdown":
			p.record("refused", false)
			return &targets.ExitError{Status: 2}
		case strings.HasPrefix(args[i], "--"):
			i++ // every flag of run takes a value
		default:
			names = append(names, args[i])
		}
	}
	k := p.record(strings.Join(names, " "), true)
	fmt.Fprint(stdout, "bench-bridge-protocol 1\ntimer_overhead_ns 0\n")
	for _, n := range names {
		per := 50
		if n == "ref_js_loop" {
			per = 10
		}
		fmt.Fprintf(stdout, "begin %s\ncalibrated %s 1000\n", n, n)
		for range 3 {
			fmt.Fprintf(stdout, "sample %s 1000 %d\n", n, 1000*per*k)
		}
		fmt.Fprintf(stdout, "end %s\n", n)
	}
	return nil
}

// record adds a run and returns how many runs have measured, this one included.
func (p *protocol1Target) record(run string, measures bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs = append(p.runs, run)
	if measures {
		p.measured++
	}
	return p.measured
}

// TestProtocol1ProgramGetsTheRefBesideEachCase: a protocol 1 program runs each case in an OS process of its own
// after ref_js_loop, and each case's ratio is against the ref of that process; ref_js_loop is kept once per process.
func TestProtocol1ProgramGetsTheRefBesideEachCase(t *testing.T) {
	tgt := &protocol1Target{}
	o := Options{Cases: []string{"ref_js_loop", "a", "b"}, Samples: 3, MinTime: time.Millisecond, Runs: 2, Seed: 3,
		Stall: time.Minute}
	raw, err := measure(context.Background(), tgt, "prog", o)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for seq := range 2 {
		for _, n := range CaseOrder(3, seq, o.Cases) {
			if n != "ref_js_loop" {
				want = append(want, "ref_js_loop "+n)
			}
		}
	}
	if got := tgt.runs; got[0] != "refused" || !slices.Equal(got[1:], want) {
		t.Fatalf("runs %q, want the refused one, then %q", got, want)
	}
	if len(raw.Failures) > 0 || len(raw.Processes) != 2 {
		t.Fatalf("failures %+v, %d processes", raw.Failures, len(raw.Processes))
	}
	for _, p := range raw.Processes {
		var names []string
		for _, c := range p.Cases {
			names = append(names, c.Name)
			if c.Name != "ref_js_loop" && (len(c.RefNs) != 3 || c.RefNs[0]*5 != c.Ns[0]) {
				t.Errorf("process %d, case %s: samples %v, ref samples %v: want its own run's ref, a fifth of them", p.Seq, c.Name, c.Ns, c.RefNs)
			}
		}
		if slices.Sort(names); !slices.Equal(names, []string{"a", "b", "ref_js_loop"}) || p.Protocol != 1 {
			t.Errorf("process %d: protocol %d, cases %v: want ref_js_loop once beside a and b", p.Seq, p.Protocol, names)
		}
	}
	a := &artifact.Artifact{}
	Assemble(a, raw, o.Cases)
	for _, name := range []string{"a", "b"} {
		for _, p := range a.Case(name).Processes {
			if p.RatioToRef == nil || *p.RatioToRef != 5 {
				t.Errorf("case %s, process %d: ratio %v, want 5 against the ref beside it", name, p.Process, p.RatioToRef)
			}
		}
	}
	if !a.Complete || a.Case("ref_js_loop") == nil || len(a.Case("ref_js_loop").Processes) != 2 {
		t.Errorf("complete %v; ref_js_loop %+v", a.Complete, a.Case("ref_js_loop"))
	}
}
