package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/stats"
)

func TestParseGate(t *testing.T) {
	c, err := Parse("b.toml", `
[gate]
alpha = 0.01
min_effect = 0.15
metric = "instructions"
instructions_threshold = 0.02

[gate.cases.bytes_64k]
min_effect = 0.30

[[gate.guards]]
case = "script_to_host_scalar"
max_ratio_to_ref = 60
codec = "json"
`)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Gate
	if g.Alpha != 0.01 || g.MinEffect != 0.15 || g.Metric != "instructions" || g.InstructionsThreshold != 0.02 ||
		g.Cases["bytes_64k"].MinEffect != 0.30 || len(g.Guards) != 1 || g.Guards[0].MaxRatioToRef != 60 || g.Guards[0].Codec != "json" {
		t.Fatalf("parsed %+v", g)
	}
}

func TestParseGateErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"alpha", "[gate]\nalpha = 5\n", "gate.alpha is 5"},
		{"metric", "[gate]\nmetric = \"cycles\"\n", `gate.metric is "cycles"`},
		{"negative effect", "[gate]\nmin_effect = -0.1\n", "gate.min_effect is -0.1: not a relative change"},
		// Values TOML can spell that would switch the gate off: a NaN alpha makes nothing significant, an infinite
		// minimum effect makes no change large enough.
		{"alpha nan", "[gate]\nalpha = nan\n", "gate.alpha is NaN: not a significance level"},
		{"alpha inf", "[gate]\nalpha = inf\n", "gate.alpha is +Inf: not a significance level"},
		{"alpha 1", "[gate]\nalpha = 1.0\n", "gate.alpha is 1: not a significance level"},
		{"negative alpha", "[gate]\nalpha = -0.05\n", "gate.alpha is -0.05"},
		{"min effect inf", "[gate]\nmin_effect = inf\n", "gate.min_effect is +Inf: not a relative change"},
		{"min effect nan", "[gate]\nmin_effect = nan\n", "gate.min_effect is NaN"},
		{"instructions threshold nan", "[gate]\ninstructions_threshold = -nan\n", "gate.instructions_threshold is NaN"},
		{"case min effect inf", "[gate.cases.callback]\nmin_effect = inf\n", "gate.cases.callback.min_effect is +Inf"},
		{"case instructions nan", "[gate.cases.callback]\ninstructions_threshold = nan\n", "gate.cases.callback.instructions_threshold is NaN"},
		{"allocations threshold negative", "[gate]\nmetric = \"allocations\"\nallocations_threshold = -1\n", "gate.allocations_threshold is -1"},
		{"case allocations inf", "[gate.cases.callback]\nallocations_threshold = inf\n", "gate.cases.callback.allocations_threshold is +Inf"},
		{"guard inf", "[[gate.guards]]\ncase = \"callback\"\nmax_ratio_to_ref = inf\n", "gate.guards[0] (callback): max_ratio_to_ref is +Inf"},
		{"unknown case", "[gate.cases.scalar]\nmin_effect = 0.2\n", "gate.cases.scalar: unknown case"},
		{"guard without bound", "[[gate.guards]]\ncase = \"callback\"\n", "gate.guards[0] (callback): max_ratio_to_ref"},
		{"guard of unknown case", "[[gate.guards]]\ncase = \"nope\"\nmax_ratio_to_ref = 3\n", `gate.guards[0]: case "nope" is unknown`},
		{"unknown key", "[gate]\nmin_efect = 0.2\n", "unknown key gate.min_efect"},
	}
	for _, tt := range tests {
		_, err := Parse("b.toml", tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "b.toml") {
			t.Errorf("%s: err %v, want b.toml: ...%s", tt.name, err, tt.want)
		}
	}
}

// The [gate] section converts into the gate's options, every setting carried over and the gate's defaults where the
// section leaves one out.
func TestGateOptions(t *testing.T) {
	c, err := Parse("b.toml", `
[gate]
min_effect = 0.15

[gate.cases.bytes_64k]
min_effect = 0.30
skip = true

[[gate.guards]]
case = "script_to_host_scalar"
max_ratio_to_ref = 60
target = "pi"
codec = "json"
`)
	if err != nil {
		t.Fatal(err)
	}
	o := c.Gate.Options()
	want := analysis.Options{Metric: analysis.Time, Alpha: stats.DefaultAlpha, MinEffect: 0.15,
		InstructionsThreshold: analysis.DefaultInstructionsThreshold, AllocationsThreshold: analysis.DefaultAllocationsThreshold,
		Cases:  map[string]analysis.CaseOptions{"bytes_64k": {MinEffect: 0.30, Skip: true}},
		Guards: []analysis.Guard{{Case: "script_to_host_scalar", MaxRatioToRef: 60, Target: "pi", Codec: "json"}}}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("Options() = %+v\nwant %+v", o, want)
	}
	if empty := (Gate{}).Options(); !reflect.DeepEqual(empty, analysis.Options{}.WithDefaults()) || empty.MinEffect != analysis.DefaultMinEffect {
		t.Errorf("an empty section: %+v, want the gate's defaults", empty)
	}
}
