package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/targets"
)

// protocolSeeds are hostile lines (floods, overflows, control characters) and the record shapes around them.
var protocolSeeds = []string{
	"bench-bridge-protocol 2", "bench-bridge-protocol 1", "bench-bridge-protocol 3",
	"timer_overhead_ns NaN", "timer_overhead_ns Inf", "timer_overhead_ns -1e308", "timer_overhead_ns 0x1p-2",
	"timer_overhead_ns 1e309", "timer_overhead_ns 1e-300", "timer_overhead_ns 21.5",
	"sample X 1 0", "calibrated X -5", "sample X 9223372036854775807 9223372036854775807",
	"sample X 9223372036854775808 1", "ref X 9223372036854775806 1",
	"meta\tkey\tvalue with tabs", "sample\u00a0X 1 1", "sample X 1 1\r", "sample\rX 1 1", "begin X\t\r",
	"slowdown X 4.0625 40.5", "slowdown X NaN 1", "rss 123456", "rss -1", "rss 1e9",
	"memory X ops=10 engine_allocs=5 host_bytes=9223372036854775807", "memory X ops=0", "memory X ops=1 ops=2",
	"memory X ops=1 heap_bytes=NaN", "memory X ops=1 nope=1", "error X TypeError: boom | pipe\x1b[2J", "loop X 10 20", "end X",
}

// FuzzParseLine: any line parses or gets an error naming its record; what parses holds finite, in-range numbers and
// prints back to a line that parses to the same record.
func FuzzParseLine(f *testing.F) {
	for _, s := range protocolSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseLine(line)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, r.kind+" record") && !strings.HasPrefix(msg, "unknown record") && msg != "empty line" {
				t.Fatalf("parseLine(%q): error %q does not name the record", line, msg)
			}
			return
		}
		for _, v := range []float64{r.f, r.g} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("parseLine(%q) = %+v: a number that is not finite and non-negative", line, r)
			}
		}
		if r.a < 0 || r.b < 0 {
			t.Fatalf("parseLine(%q) = %+v: a negative count", line, r)
		}
		again, err := parseLine(formatRecord(r))
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("parseLine(%q) = %+v, printed %q, parsed again %+v, %v", line, r, formatRecord(r), again, err)
		}
	})
}

// formatRecord prints r as a bench program would.
func formatRecord(r record) string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	words := []string{r.kind}
	switch r.kind {
	case "bench-bridge-protocol":
		words = append(words, strconv.FormatInt(r.a, 10))
	case "meta":
		words = append(words, r.key, r.text)
	case "timer_overhead_ns":
		words = append(words, num(r.f))
	case "begin", "end":
		words = append(words, r.name)
	case "calibrated":
		words = append(words, r.name, strconv.FormatInt(r.a, 10))
	case "error":
		words = append(words, r.name, r.text)
	case "rss":
		words = append(words, strconv.FormatInt(r.a, 10))
	case "memory":
		words = append(words, r.name, "ops="+strconv.FormatInt(r.mem.Ops, 10))
		for _, key := range memoryKeys[1:] {
			if n := *memoryCount(r.mem, key); n != nil {
				words = append(words, key+"="+strconv.FormatInt(*n, 10))
			}
		}
	case "slowdown":
		words = append(words, r.name, num(r.f), num(r.g))
	default:
		words = append(words, r.name, strconv.FormatInt(r.a, 10), strconv.FormatInt(r.b, 10))
	}
	return strings.Join(words, " ")
}

// scriptTarget is a target whose program prints a fixed output and exits with a fixed status: a whole process from
// fuzzed bytes, thousands a second, which a real process cannot give. Everything else is the real runner.
type scriptTarget struct {
	out    []byte
	status int
}

func (s scriptTarget) Name() string                                    { return "fuzz" }
func (s scriptTarget) Capabilities() targets.Capabilities              { return targets.Capabilities{} }
func (s scriptTarget) Platform() targets.Platform                      { return targets.Platform{} }
func (s scriptTarget) Push(context.Context, string) (string, error)    { return "prog", nil }
func (s scriptTarget) Pull(context.Context, string, string) error      { return nil }
func (s scriptTarget) Device(context.Context) (artifact.Device, error) { return artifact.Device{}, nil }
func (s scriptTarget) Close() error                                    { return nil }
func (s scriptTarget) Run(ctx context.Context, _ string, _ []string, stdout, _ io.Writer) error {
	if _, err := stdout.Write(s.out); err != nil {
		return err
	}
	if s.status != 0 {
		return &targets.ExitError{Status: s.status}
	}
	return ctx.Err()
}

// processOutputs are whole outputs of one process: the good one, and bad orders and floods (the 2 MiB line and the
// endless stream come from a real program, in TestMeasureBoundsWhatAProgramPrints).
func processOutputs() []string {
	head := "bench-bridge-protocol 2\nmeta program bridge\ntimer_overhead_ns 20\n"
	good := "begin a\ncalibrated a 1000\nref a 1000 20000\nsample a 1000 50000\nsample a 1000 50010\nend a\n"
	ref := "begin ref_js_loop\ncalibrated ref_js_loop 10\nsample ref_js_loop 10 1000\nend ref_js_loop\n"
	return []string{
		head + ref + good,
		head + "sample a 1 1\nbegin a\nend a\n",                             // sample before begin
		head + "begin a\nbegin a\n",                                         // begin twice
		head + good + "error a late\n",                                      // error after end
		head + "begin a\nsample a 1 1\nbench-bridge-protocol 2\nend a\n",    // the header again mid-stream
		head + "begin a\n" + strings.Repeat("sample a 1000 50000\n", 10000), // a sample stream without end
		head + "begin a\nsample a 1 1\nsample a 1 1\nend a\n",               // samples no longer than the overhead
		"bench-bridge-protocol 2\ntimer_overhead_ns 1e300\n" + good,         // an overhead over every sample
		head + "begin\ta\nsample a\t1\u00a0 1\r\nend a\r\n",                 // tab, NBSP and CR separators
		head + "begin a\nsample a 9223372036854775807 9223372036854775807\nsample a 1 9223372036854775807\nend a\n",
		head + "begin a\n" + strings.Repeat("x", 2<<20), // a 2 MiB line without a newline
		"bench-bridge-protocol 1\n" + ref + "begin a\nsample a 1 1\nslowdown a 1 1\nend a\n",
		head + ref + "begin a\nsample a 1000 50000\nmemory a ops=1000 engine_allocs=3000 host_bytes=0\nend a\nrss 4096\n",
		head + "memory a ops=1\nbegin a\nsample a 1 5\nend a\nmemory a ops=1\nrss 1\nrss 2\n", // memory outside its case
	}
}

// FuzzProcessOutput runs whole processes of fuzzed output through the runner and assembles them: whatever a program prints,
// the run ends, keeps no case over the sample cap, and gives an artifact that Validate accepts and JSON can encode.
func FuzzProcessOutput(f *testing.F) {
	for _, s := range processOutputs() {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte{}, uint8(2))
	f.Add([]byte("bench-bridge-protocol 2\nbegin a\nsample a 5 5\n"), uint8(139))
	f.Fuzz(func(t *testing.T, out []byte, status uint8) {
		o := Options{Cases: []string{"ref_js_loop", "a", "b"}, Samples: 2, MinTime: time.Millisecond, Runs: 2,
			Stall: time.Minute, CaseTimeout: time.Minute}
		raw, err := measure(context.Background(), scriptTarget{out: out, status: int(status)}, "prog", o)
		if err != nil {
			return // a transport error: Run's write failed, which a fuzzed output cannot cause
		}
		for _, p := range raw.Processes {
			for _, c := range p.Cases {
				if len(c.Ns) > o.sampleCap() || len(c.RefNs) > o.sampleCap() || len(c.Ns) != len(c.Ops) {
					t.Fatalf("case %s kept %d samples, %d refs: over the cap of %d", c.Name, len(c.Ns), len(c.RefNs), o.sampleCap())
				}
			}
		}
		a := &artifact.Artifact{Schema: artifact.Schema, Target: "fuzz", Kind: artifact.ProgramBridge}
		Assemble(a, raw, o.Cases)
		if err := a.Validate(); err != nil {
			t.Fatalf("the runner assembled an artifact that Validate refuses: %v\noutput:\n%s", err, out)
		}
		data, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("encoding: %v", err)
		}
		if _, err := artifact.Parse(data); err != nil {
			t.Fatalf("the artifact does not read back: %v", err)
		}
		for _, fl := range a.Failures {
			if bytes.ContainsAny([]byte(fl.Name), " \t\n") {
				t.Fatalf("failure of case %q, a name no one asked for", fl.Name)
			}
		}
	})
}
