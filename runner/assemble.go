package runner

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// Assemble computes per-op statistics from raw samples and fills a's processes, cases, failures and warnings. a
// arrives with its identity (target, program, device, settings, session) already set. Every case's statistics come
// from the process level: each process gives a median and a ratio to the ref measured beside the case.
func Assemble(a *artifact.Artifact, raw *Raw, want []string) {
	a.Failures = append(a.Failures, raw.Failures...)
	a.Settings.Runs = len(raw.Processes)
	var overheads []float64
	for _, rp := range raw.Processes {
		a.Processes = append(a.Processes, artifact.Process{Seq: rp.Seq, CaseOrder: rp.Order, Protocol: rp.Protocol,
			TimerOverheadNs: rp.TimerOverheadNs, PeakRSSBytes: rp.PeakRSSBytes})
		overheads = append(overheads, rp.TimerOverheadNs)
	}
	names, byName := caseProcesses(raw)
	recordStates(a, raw)
	if len(overheads) > 0 {
		a.TimerOverheadNs = stats.Median(overheads)
	}
	var measured []*artifact.Case
	for _, name := range caseOrder(want, names) {
		c := byName[name]
		if c == nil {
			continue
		}
		if why := unmeasurable(a, c); why != "" {
			// Its median would be 0 and its ratio NaN: the artifact could not be written with it.
			a.Failures = append(a.Failures, artifact.Failure{Name: name, Reason: why})
			continue
		}
		measured = append(measured, c)
	}
	applyStates(a, measured, raw.Added)
	for _, c := range measured {
		summarize(a, c)
		a.Cases = append(a.Cases, *c)
	}
	if a.Case(cases.RefCase) == nil {
		dropRatios(a)
	}
	a.Complete = len(a.Failures) == 0 && len(a.Cases) == len(want)
	a.FinishedAt = time.Now().UTC()
}

// caseProcesses gathers every case's processes from raw: the cases' names in the order processes first measured
// them, and each case with its processes, in the order they ran.
func caseProcesses(raw *Raw) ([]string, map[string]*artifact.Case) {
	var names []string
	byName := map[string]*artifact.Case{}
	for pi, rp := range raw.Processes {
		for _, rc := range rp.Cases {
			c := byName[rc.Name]
			if c == nil {
				c = &artifact.Case{Name: rc.Name, Iterations: rc.Iterations}
				byName[rc.Name] = c
				names = append(names, rc.Name)
			}
			c.Partial = c.Partial || rc.Partial
			c.Processes = append(c.Processes, caseProcess(pi, rp, rc))
		}
	}
	return names, byName
}

// unmeasurable says why a case's samples give no time, or "": a process whose runs were all no longer than its
// timer overhead (a timer_overhead_ns as large as the runs) has a median of 0 ns per op.
func unmeasurable(a *artifact.Artifact, c *artifact.Case) string {
	for _, p := range c.Processes {
		if !(p.MedianNs > 0) {
			return fmt.Sprintf("process %d: its samples are no longer than its timer_overhead_ns, %g", p.Process,
				a.Processes[p.Process].TimerOverheadNs)
		}
	}
	return ""
}

// dropRatios takes the ratios off every case of a run whose ref_js_loop was not measured (it failed, or was not
// asked for): a reader could not check them against it, and the artifact would not validate.
func dropRatios(a *artifact.Artifact) {
	had := false
	for i := range a.Cases {
		c := &a.Cases[i]
		had = had || c.RatioToRef != nil
		c.RatioToRef, c.RatioPILow, c.RatioPIHigh = nil, nil, nil
		for j := range c.Processes {
			c.Processes[j].RatioToRef = nil
		}
	}
	if had {
		a.Warnings = append(a.Warnings, cases.RefCase+" was not measured: the cases have no ratio to it")
	}
}

// caseOrder is want's order, then any case a process measured (measured, in the order first measured) that want does
// not name.
func caseOrder(want, measured []string) []string {
	out := slices.Clone(want)
	for _, name := range measured {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// caseProcess turns one case of process index pi into per-op samples and its ratio to the ref: the ref samples
// taken beside it (protocol 2), else the process's own ref_js_loop samples (protocol 1).
func caseProcess(pi int, rp RawProcess, rc RawCase) artifact.CaseProcess {
	p := artifact.CaseProcess{Process: pi, Iterations: rc.Iterations, SamplesNs: perOp(rc.Ops, rc.Ns, rp.TimerOverheadNs),
		SlowdownNs: rc.SlowdownNs, SlowdownBaseNs: rc.SlowdownBaseNs, Memory: rc.Memory}
	p.MedianNs = stats.Median(p.SamplesNs)
	switch {
	case rc.Name == cases.RefCase:
		p.RefMedianNs = p.MedianNs
	case len(rc.RefNs) > 0:
		p.RefSamplesNs = perOp(rc.RefOps, rc.RefNs, rp.TimerOverheadNs)
		p.RefMedianNs = stats.Median(p.RefSamplesNs)
	default:
		for _, other := range rp.Cases {
			if other.Name == cases.RefCase {
				p.RefSamplesNs = perOp(other.Ops, other.Ns, rp.TimerOverheadNs)
				p.RefMedianNs = stats.Median(p.RefSamplesNs)
			}
		}
	}
	if r := stats.Ratio(p.MedianNs, p.RefMedianNs); !math.IsNaN(r) {
		p.RatioToRef = ptr(r)
	}
	return p
}

// perOp turns timed runs into ns per op, the timer overhead taken off each run.
func perOp(ops, ns []int64, overhead float64) []float64 {
	out := make([]float64, len(ns))
	for i := range ns {
		out[i] = max(float64(ns[i])-overhead, 0) / float64(ops[i])
	}
	return out
}

// summarize fills a case's statistics over its processes and adds its warnings to a.
func summarize(a *artifact.Artifact, c *artifact.Case) {
	if meta, ok := cases.Lookup(c.Name); ok {
		c.Crossing = meta.Crossing
	}
	for _, p := range c.Processes {
		c.SamplesNs = append(c.SamplesNs, p.SamplesNs...)
	}
	s := a.StateInterval(c, stats.Level)
	c.MedianNs, c.PILowNs, c.PIHighNs, c.PILevel = s.Median, s.Low, s.High, s.Level
	// A ratio needs a least sample above the timer overhead in some process: one whose least sample is 0 ns per op
	// (a run no longer than the overhead) has none, and no NaN goes into the artifact.
	if r := stats.LeastOverLeast(c.ProcessSamples(), stats.Level); len(c.ProcessRatios()) == len(c.Processes) && !math.IsNaN(r.Ratio) {
		c.RatioToRef = ptr(r.Ratio)
		if r.Level > 0 {
			c.RatioPILow, c.RatioPIHigh = ptr(r.Low), ptr(r.High)
		}
	}
	if c.Crossing && c.MedianNs > 0 {
		c.CrossingsPerMs = ptr(1e6 / c.MedianNs)
	}
	c.Memory = c.MemoryFromProcesses()
}

func ptr(v float64) *float64 { return &v }
