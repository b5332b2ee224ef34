package stats

import "testing"

func TestStateShift(t *testing.T) {
	tests := []struct {
		name       string
		refA, refB []float64
		th         StateShiftThresholds
		want       Shift
	}{
		{"one speed", []float64{33, 35, 50}, []float64{34, 40}, DefaultStateShift, Shift{LeastA: 33, LeastB: 34}},
		{"b never ran at a's speed", []float64{33, 35}, []float64{45, 50}, DefaultStateShift, Shift{LeastA: 33, LeastB: 45, Shifted: true}},
		{"a never ran at b's speed", []float64{50}, []float64{33, 60}, DefaultStateShift, Shift{LeastA: 50, LeastB: 33, Shifted: true}},
		{"exactly at the threshold", []float64{40}, []float64{50}, DefaultStateShift, Shift{LeastA: 40, LeastB: 50}},
		{"a looser threshold", []float64{33}, []float64{45}, StateShiftThresholds{MaxRatio: 1.5}, Shift{LeastA: 33, LeastB: 45}},
		{"no ref in one run", nil, []float64{33}, DefaultStateShift, Shift{}},
		{"a zero sample", []float64{0, 33}, []float64{45}, DefaultStateShift, Shift{LeastA: 0, LeastB: 45}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StateShift(tt.refA, tt.refB, tt.th); got != tt.want {
				t.Errorf("StateShift = %+v, want %+v", got, tt.want)
			}
		})
	}
}
