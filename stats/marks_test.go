package stats

import "testing"

// TestMarkProcesses: a process is marked when its least reference sample is more than MaxRefSlowdown above the
// run's fastest, or its core's clock moved between its start and end; processes without a reference or without
// both frequencies are judged on what they have.
func TestMarkProcesses(t *testing.T) {
	ps := []ProcessSpeed{
		{RefLeastNs: 20, FreqStartKHz: 1800000, FreqEndKHz: 1800000}, // the fastest
		{RefLeastNs: 22},   // exactly 10% slower: not more
		{RefLeastNs: 22.2}, // 11% slower
		{RefLeastNs: 20.5, FreqStartKHz: 2800000, FreqEndKHz: 2200000}, // clocked down
		{FreqStartKHz: 1000, FreqEndKHz: 1000},                         // no reference
		{RefLeastNs: 21, FreqStartKHz: 1000},                           // no end frequency
	}
	want := []Mark{
		{RefRatio: 1},
		{RefRatio: 1.1},
		{RefRatio: 1.11, Slow: true},
		{RefRatio: 1.025, FreqChanged: true},
		{},
		{RefRatio: 1.05},
	}
	got := MarkProcesses(ps, DefaultMarks)
	for i := range want {
		g, w := got[i], want[i]
		if g.Slow != w.Slow || g.FreqChanged != w.FreqChanged || g.Marked() != (w.Slow || w.FreqChanged) ||
			(w.RefRatio == 0) != (g.RefRatio == 0) || w.RefRatio > 0 && !(g.RefRatio > w.RefRatio-1e-9 && g.RefRatio < w.RefRatio+1e-9) {
			t.Errorf("process %d: %+v, want %+v", i, g, w)
		}
	}
}

// TestMarkThresholdsAreData: the thresholds decide, not constants: a tolerance on the clock and a looser slowdown.
func TestMarkThresholdsAreData(t *testing.T) {
	ps := []ProcessSpeed{{RefLeastNs: 10}, {RefLeastNs: 12, FreqStartKHz: 2000, FreqEndKHz: 1900}}
	m := MarkProcesses(ps, MarkThresholds{MaxRefSlowdown: 0.25, MaxFreqChange: 0.10})
	if m[1].Marked() {
		t.Errorf("marked under thresholds it stays within: %+v", m[1])
	}
	if m = MarkProcesses(ps, DefaultMarks); !m[1].Slow || !m[1].FreqChanged {
		t.Errorf("not marked at the defaults: %+v", m[1])
	}
	if m = MarkProcesses(nil, DefaultMarks); len(m) != 0 {
		t.Errorf("marks of no process: %v", m)
	}
}
