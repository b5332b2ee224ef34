package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// beside pairs each process's samples with its ref samples.
func beside(samples, ref [][]float64) []ProcessSamples {
	out := make([]ProcessSamples, len(samples))
	for i := range samples {
		out[i] = ProcessSamples{Samples: samples[i], Ref: ref[i]}
	}
	return out
}

func TestLeastOverLeast(t *testing.T) {
	// Processes 1 and 3 ran while the machine was slower: the case 1.8x, the ref 1.4x. The least of each is what
	// processes 0, 2 and 4 measured; the processes' own ratios (medians) are a little above their least.
	samples := [][]float64{{100, 102, 104}, {180, 183, 186}, {102, 103, 104}, {181, 182, 183}, {101, 101, 101}}
	ref := [][]float64{{10, 10, 10}, {14, 14, 14}, {10.1, 10.1, 10.1}, {14, 14, 14}, {10.2, 10.2, 10.2}}
	r := LeastOverLeast(beside(samples, ref), Level)
	if r.Ratio != 10 {
		t.Errorf("ratio %v, want 100/10", r.Ratio)
	}
	if !(r.Low <= r.Ratio && r.Ratio <= r.High) || r.Level != Level {
		t.Errorf("interval %v..%v at %v does not hold %v", r.Low, r.High, r.Level, r.Ratio)
	}
	// The interval: the ratio times exp(± t(0.975, 4) · sd of the logs of the processes' ratios · sqrt(pi/5)).
	var logs []float64
	for i := range samples {
		logs = append(logs, math.Log(Median(samples[i])/Median(ref[i])))
	}
	half := 2.7764451 * stat.StdDev(logs, nil) * math.Sqrt(math.Pi/5)
	if math.Abs(r.Low-10*math.Exp(-half)) > 1e-6 || math.Abs(r.High-10*math.Exp(half)) > 1e-6 {
		t.Errorf("interval %v..%v, want 10 × exp(±%v)", r.Low, r.High, half)
	}
	// The median over processes of the per-process ratios moves with the mix of slow processes; this does not.
	more := beside(append(samples, []float64{179}, []float64{182}), append(ref, []float64{14.1}, []float64{13.9}))
	if r2 := LeastOverLeast(more, Level); r2.Ratio != r.Ratio {
		t.Errorf("two more slow processes moved the ratio to %v", r2.Ratio)
	}

	tests := []struct {
		name  string
		procs []ProcessSamples
		ratio float64 // NaN for none
	}{
		{"one process has no interval", []ProcessSamples{{Samples: []float64{5, 6}, Ref: []float64{2, 2}}}, 2.5},
		{"the ref itself", []ProcessSamples{{Samples: []float64{3, 4}, Ref: []float64{3, 4}}, {Samples: []float64{5}, Ref: []float64{5}}}, 1},
		{"a process without ref samples is left out", []ProcessSamples{{Samples: []float64{1}}, {Samples: []float64{6}, Ref: []float64{3}}}, 2},
		{"no usable process", []ProcessSamples{{Samples: []float64{0}, Ref: []float64{1}}, {Samples: []float64{math.Inf(1)}, Ref: []float64{1}}}, math.NaN()},
		{"no processes", nil, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := LeastOverLeast(tt.procs, Level)
			if !sameFloat(r.Ratio, tt.ratio) {
				t.Errorf("ratio %v, want %v", r.Ratio, tt.ratio)
			}
			if len(tt.procs) < 2 && (r.Level != 0 || !sameFloat(r.Low, r.Ratio) || !sameFloat(r.High, r.Ratio)) {
				t.Errorf("interval %v..%v at %v, want none", r.Low, r.High, r.Level)
			}
		})
	}
}

func TestRatioAndChange(t *testing.T) {
	tests := []struct {
		name      string
		x, ref    float64
		ratio     float64 // NaN for none
		changeTo1 float64 // Change(ref, x)
	}{
		{"twice", 20, 10, 2, 1},
		{"smaller", 9, 10, 0.9, -0.1},
		{"zero ref", 5, 0, math.NaN(), math.NaN()},
		{"negative ref", 5, -1, math.NaN(), math.NaN()},
		{"infinite ref", 5, math.Inf(1), math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ratio(tt.x, tt.ref); !sameFloat(got, tt.ratio) && math.Abs(got-tt.ratio) > 1e-12 {
				t.Errorf("Ratio(%v, %v) = %v, want %v", tt.x, tt.ref, got, tt.ratio)
			}
			if got := Change(tt.ref, tt.x); !sameFloat(got, tt.changeTo1) && math.Abs(got-tt.changeTo1) > 1e-12 {
				t.Errorf("Change(%v, %v) = %v, want %v", tt.ref, tt.x, got, tt.changeTo1)
			}
		})
	}
}

func TestLeastMedianRatio(t *testing.T) {
	tests := []struct {
		name               string
		medians, refMedian []float64
		want               float64 // NaN for none
	}{
		{"least over least", []float64{30, 20, 25}, []float64{12, 10, 11}, 2},
		{"from different processes", []float64{20, 30}, []float64{12, 10}, 2},
		{"a process without ref is left out", []float64{5, 30}, []float64{0, 10}, 3},
		{"no ref at all", []float64{5}, []float64{0}, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LeastMedianRatio(tt.medians, tt.refMedian); !sameFloat(got, tt.want) {
				t.Errorf("LeastMedianRatio = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRatioValues(t *testing.T) {
	tests := []struct {
		name          string
		processRatios []float64
		processes     int
		samples       []float64
		refMedian     float64
		want          []float64
	}{
		{"every process's ratio", []float64{2, 2.1, 1.9}, 3, []float64{20, 21, 19}, 10, []float64{2, 2.1, 1.9}},
		{"one process: samples over the ref", []float64{2}, 1, []float64{20, 30}, 10, []float64{2, 3}},
		{"a process without ratio: samples over the ref", []float64{2, 2.1}, 3, []float64{40}, 10, []float64{4}},
		{"no ref", nil, 1, []float64{20}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RatioValues(tt.processRatios, tt.processes, tt.samples, tt.refMedian)
			if len(got) != len(tt.want) || (tt.want == nil) != (got == nil) {
				t.Fatalf("RatioValues = %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-12 {
					t.Errorf("RatioValues = %v, want %v", got, tt.want)
				}
			}
		})
	}
}
