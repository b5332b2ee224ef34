// Package fakeart makes artifacts in memory for tests: statistics without a machine. Its artifacts are what the
// runner assembles (medians, per-process ratios to ref_js_loop, the least over the least), so analysis and its views
// can be tested on them, and artifact.Validate accepts them.
package fakeart

import (
	"math/rand/v2"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/stats"
)

// Base is a small set of medians: ref_js_loop and three crossings.
var Base = map[string]float64{cases.RefCase: 25, "script_to_host_scalar": 1250, "callback": 1250, "script_to_host_object": 6000}

// Artifact makes the json bridge's artifact on target linux whose cases (those of medians, in the catalogue's order)
// have 10 processes of one sample each, near the given ns, spread by noise (relative) from a generator seeded with
// seed: the same seed gives the same artifact.
func Artifact(seed uint64, noise float64, medians map[string]float64) *artifact.Artifact {
	return WithProcesses(seed, noise, medians, 10)
}

// WithProcesses is Artifact with n processes.
func WithProcesses(seed uint64, noise float64, medians map[string]float64, n int) *artifact.Artifact {
	r := rand.New(rand.NewPCG(seed, 7))
	a := &artifact.Artifact{Schema: artifact.Schema, Target: "linux", Kind: artifact.ProgramBridge, Codec: "json", Complete: true}
	for _, name := range cases.Names() {
		m, ok := medians[name]
		if !ok {
			continue
		}
		c := artifact.Case{Name: name}
		for p := range n {
			// One sample per process: each process's median is its sample.
			s := m * (1 + noise*(r.Float64()-0.5))
			c.SamplesNs = append(c.SamplesNs, s)
			c.Processes = append(c.Processes, artifact.CaseProcess{Process: p, SamplesNs: []float64{s}, MedianNs: s})
		}
		s := stats.PredictionInterval(c.SamplesNs, stats.Level)
		c.MedianNs, c.PILowNs, c.PIHighNs, c.PILevel = s.Median, s.Low, s.High, s.Level
		a.Cases = append(a.Cases, c)
	}
	for p := range n {
		a.Processes = append(a.Processes, artifact.Process{Seq: p, Protocol: 2})
	}
	if ref := a.Case(cases.RefCase); ref != nil {
		for i := range a.Cases {
			c := &a.Cases[i]
			for p := range c.Processes {
				rp := c.Processes[p].MedianNs / ref.Processes[p].MedianNs
				c.Processes[p].RefMedianNs, c.Processes[p].RatioToRef = ref.Processes[p].MedianNs, &rp
			}
			// As the runner computes it (and artifact.Validate checks it).
			v := stats.LeastOverLeast(c.ProcessSamples(), 0).Ratio
			c.RatioToRef = &v
		}
	}
	return a
}

// Scaled is m with the medians of the cases in by multiplied by their factor.
func Scaled(m map[string]float64, by map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		out[k] = v
		if f, ok := by[k]; ok {
			out[k] = v * f
		}
	}
	return out
}
