package config

import (
	"strings"
	"testing"
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
		{"negative effect", "[gate]\nmin_effect = -0.1\n", "not negative"},
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
