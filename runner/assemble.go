package runner

import (
	"fmt"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// confidence is the level of every interval in an artifact.
const confidence = 0.95

// unstableSpread is the relative half-width of a median's interval above which a case is flagged as unstable.
const unstableSpread = 0.10

// Assemble computes per-op statistics from raw samples and fills a's cases, failures and warnings. a arrives with
// its identity (target, program, device, settings) already set.
func Assemble(a *artifact.Artifact, raw *Raw, want []string) {
	a.TimerOverheadNs = raw.TimerOverheadNs
	a.Failures = append(a.Failures, raw.Failures...)
	var few intervalWarnings
	for _, rc := range raw.Cases {
		c := artifact.Case{Name: rc.Name, Iterations: rc.Iterations, Partial: rc.Partial}
		if meta, ok := cases.Lookup(rc.Name); ok {
			c.Crossing = meta.Crossing
		}
		for i := range rc.Ns {
			ns := float64(rc.Ns[i]) - raw.TimerOverheadNs
			c.SamplesNs = append(c.SamplesNs, max(ns, 0)/float64(rc.Ops[i]))
		}
		s := stats.Summarize(c.SamplesNs, confidence)
		c.MedianNs, c.CILowNs, c.CIHighNs, c.CILevel = s.Median, s.Low, s.High, s.Confidence
		few.add(c.Name, s)
		if spread := max(c.MedianNs-c.CILowNs, c.CIHighNs-c.MedianNs) / c.MedianNs; spread > unstableSpread {
			a.Warnings = append(a.Warnings, fmt.Sprintf("%s: unstable, the median's interval is ±%.0f%%; "+
				"close other programs or raise --samples and --min-time", c.Name, 100*spread))
		}
		if c.Crossing && c.MedianNs > 0 {
			c.CrossingsPerMs = ptr(1e6 / c.MedianNs)
		}
		a.Cases = append(a.Cases, c)
	}
	a.Warnings = append(a.Warnings, few.lines()...)
	a.Settings.Runs = 1
	a.Processes = []artifact.Process{{CaseOrder: want, Protocol: 1, TimerOverheadNs: raw.TimerOverheadNs}}
	ref := a.Case(cases.RefCase)
	for i := range a.Cases {
		c := &a.Cases[i]
		p := artifact.CaseProcess{Iterations: c.Iterations, SamplesNs: c.SamplesNs, MedianNs: c.MedianNs}
		if ref != nil {
			c.RatioToRef = ptr(c.MedianNs / ref.MedianNs)
			p.RefMedianNs, p.RatioToRef = ref.MedianNs, c.RatioToRef
		}
		c.Processes = []artifact.CaseProcess{p}
	}
	a.Complete = len(a.Failures) == 0 && len(a.Cases) == len(want)
	a.FinishedAt = time.Now().UTC()
}

func ptr(v float64) *float64 { return &v }
