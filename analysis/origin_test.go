package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/cases"
)

// Options that would switch the gate off are an error, not a pass: with a NaN alpha or an infinite minimum effect a
// case three times slower would pass.
func TestJudgeRefusesThresholdsThatSwitchItOff(t *testing.T) {
	slow := scaled(base, map[string]float64{"script_to_host_scalar": 3})
	tests := []struct {
		name   string
		change func(o *Options)
		want   string
	}{
		{"NaN alpha", func(o *Options) { o.Alpha = math.NaN() }, "gate: alpha NaN: not a significance level"},
		{"alpha 1", func(o *Options) { o.Alpha = 1 }, "gate: alpha 1"},
		{"infinite minimum effect", func(o *Options) { o.MinEffect = math.Inf(1) }, "gate: minimum effect +Inf: not a relative change"},
		{"NaN minimum effect", func(o *Options) { o.MinEffect = math.NaN() }, "gate: minimum effect NaN"},
		{"NaN instructions threshold", func(o *Options) { o.InstructionsThreshold = math.NaN() }, "gate: instructions threshold NaN"},
		{"infinite case override", func(o *Options) {
			o.Cases = map[string]CaseOptions{"script_to_host_scalar": {MinEffect: math.Inf(1)}}
		}, "gate: minimum effect of script_to_host_scalar +Inf"},
	}
	o := Options{}.WithDefaults()
	r, err := Judge(fake(t, 1, 0.02, base), fake(t, 2, 0.02, slow), "b.json", "c.json", o)
	if err != nil || verdicts(r)["script_to_host_scalar"] != Regressed {
		t.Fatalf("3x slower with the defaults: %v, %v", err, r)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{}.WithDefaults()
			tt.change(&o)
			_, err := Judge(fake(t, 1, 0.02, base), fake(t, 2, 0.02, slow), "b.json", "c.json", o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// A reference count of 0 divides every count by zero: every case would be "improved".
func TestJudgeRefusesAZeroReferenceCount(t *testing.T) {
	counts := map[string]float64{cases.RefCase: 451, "script_to_host_scalar": 19041}
	b := withInstructions(fake(t, 1, 0.02, base), counts)
	c := withInstructions(fake(t, 2, 0.02, base), scaled(counts, map[string]float64{cases.RefCase: 0}))
	_, err := Judge(b, c, "b.json", "c.json", Options{Metric: Instructions}.WithDefaults())
	if err == nil || !strings.Contains(err.Error(), `c.json: ref_js_loop: field "instructions_per_op" is 0, want a positive count`) {
		t.Errorf("err %v", err)
	}
}

// Artifacts of different devices are gated by ×ref (as always) with one warning line that names the difference; an
// emulated side is marked next to its numbers, with the reason.
func TestJudgeNamesDifferentOriginsAndEmulation(t *testing.T) {
	b, c := fake(t, 1, 0.02, base), fake(t, 2, 0.02, base)
	b.Device.CPUModel, c.Device.CPUModel = "Intel Xeon Processor", "AMD EPYC 7B13"
	c.Device.Emulated, c.Device.EmulatedReason = true, "arm program on an x86_64 kernel"
	r, err := Judge(b, c, "A.json", "B.json", Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	for _, n := range r.Notes {
		if n.Kind.IsWarning() {
			warnings = append(warnings, n.String())
		}
	}
	want := "warning: A.json and B.json come from different CPUs (Intel Xeon Processor, AMD EPYC 7B13), emulation " +
		"(native, emulated: arm program on an x86_64 kernel): comparing ×ref only"
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want one: %q", warnings, want)
	}

	// The same device: no warning.
	r, _ = Judge(fake(t, 1, 0.02, base), fake(t, 2, 0.02, base), "A.json", "B.json", Options{}.WithDefaults())
	for _, n := range r.Notes {
		if n.Kind == Origin {
			t.Errorf("same device: %v", n)
		}
	}
}
