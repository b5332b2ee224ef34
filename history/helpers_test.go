package history

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/runner"
)

// night describes one artifact the tests write: a run on a machine of its own (cpu) that measured
// script_to_host_scalar at ratio times ref_js_loop, with instructions per op when instr is not 0.
type night struct {
	target, cpu string
	start       time.Time
	session     string
	ratio       float64
	instr       float64
}

// writeNight writes n as an artifact that the runner's own code assembled from raw samples (three processes of
// three samples each) and returns its path.
func writeNight(t *testing.T, dir string, n night) string {
	t.Helper()
	a := &artifact.Artifact{Schema: artifact.Schema, Tool: "bench-bridge test", Target: n.target, Kind: artifact.ProgramBridge,
		Codec: "json", Device: artifact.Device{OS: "Linux", Arch: "x86_64", CPUModel: n.cpu, Cores: 2, Compiler: "gcc 12.2.0",
			CFlags: "-O2", QuickJS: "2025-04-26"}, Engine: artifact.Engine{Name: "quickjs", Version: "2025-04-26"},
		Settings: artifact.Settings{Samples: 3, MinTimeNs: 1e6, Runs: 3}, StartedAt: n.start,
		Session: artifact.Session{ID: n.session, Programs: []string{"json " + n.target}, Order: []int{0, 0, 0}}}
	raw := &runner.Raw{}
	names := []string{cases.RefCase, "script_to_host_scalar"}
	for p := range 3 {
		rp := runner.RawProcess{Seq: p, Order: names, Protocol: 2, TimerOverheadNs: 0}
		for _, name := range names {
			rc := runner.RawCase{Name: name, Iterations: 1000}
			per := 20.0
			if name != cases.RefCase {
				per = 20 * n.ratio
			}
			for s := range 3 {
				ns := int64(per*1000) + int64(10*s+p)
				rc.Ops, rc.Ns = append(rc.Ops, 1000), append(rc.Ns, ns)
				if name != cases.RefCase {
					rc.RefOps, rc.RefNs = append(rc.RefOps, 1000), append(rc.RefNs, 20_000+int64(s))
				}
			}
			rp.Cases = append(rp.Cases, rc)
		}
		raw.Processes = append(raw.Processes, rp)
	}
	runner.Assemble(a, raw, names)
	if n.instr > 0 {
		for i := range a.Cases {
			v := n.instr
			if a.Cases[i].Name == cases.RefCase {
				v = 100
			}
			a.Cases[i].InstructionsPerOp = &v
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.json", n.target, n.start.Format("20060102T150405"), n.session))
	if err := artifact.Write(path, a); err != nil {
		t.Fatal(err)
	}
	return path
}

// day is the nth test night, at 03:17 UTC.
func day(n int) time.Time {
	return time.Date(2026, 11, 1, 3, 17, 0, 0, time.UTC).AddDate(0, 0, n)
}

// nightN is night n of a device named by target and cpu, at ratio.
func nightN(target, cpu string, n int, ratio float64) night {
	return night{target: target, cpu: cpu, start: day(n), session: strings.ReplaceAll(fmt.Sprintf("s-%s-%s-%d", target, cpu, n), " ", ""), ratio: ratio}
}

// entries reads paths for the store, each at commit revN.
func entries(t *testing.T, o EntryOptions, paths ...string) []Entry {
	t.Helper()
	var out []Entry
	for _, p := range paths {
		if o.Commit == "" {
			o.Commit = "0123456789ab"
		}
		e, err := ReadEntry(p, o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// nightCount is how many nights the store at loc holds, over every series.
func nightCount(t *testing.T, s *Store) int {
	t.Helper()
	h, err := s.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, se := range h.Series {
		n += len(se.Nights)
	}
	return n
}
