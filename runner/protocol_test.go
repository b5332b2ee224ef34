package runner

import (
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	good := []struct {
		line string
		want record
	}{
		{"bench-bridge-protocol 1", record{kind: "bench-bridge-protocol", a: 1}},
		{"meta compiler gcc 12.2.0 (Debian)", record{kind: "meta", key: "compiler", text: "gcc 12.2.0 (Debian)"}},
		{"timer_overhead_ns 21.5", record{kind: "timer_overhead_ns", f: 21.5}},
		{"calibrated callback 1200", record{kind: "calibrated", name: "callback", a: 1200}},
		{"sample callback 1200 52000000", record{kind: "sample", name: "callback", a: 1200, b: 52000000}},
		{"error callback TypeError: not a function", record{kind: "error", name: "callback", text: "TypeError: not a function"}},
		{"loop callback 10 20", record{kind: "loop", name: "callback", a: 10, b: 20}},
		{"ref callback 300 12000", record{kind: "ref", name: "callback", a: 300, b: 12000}},
		{"slowdown callback 4.0625 40.5", record{kind: "slowdown", name: "callback", f: 4.0625, g: 40.5}},
	}
	for _, g := range good {
		got, err := parseLine(g.line)
		if err != nil || got != g.want {
			t.Errorf("parseLine(%q) = %+v, %v; want %+v", g.line, got, err, g.want)
		}
	}
	bad := map[string]string{
		"":                        "empty line",
		"hello world":             "unknown record",
		"sample callback 10":      "wants 4 fields",
		"sample callback 0 10":    "ops must be positive",
		"sample callback x 10":    "invalid syntax",
		"end callback extra":      "wants 2 fields",
		"calibrated callback 1e3": "invalid syntax",
		"slowdown callback -1 40": "non-negative",
		"slowdown callback NaN 4": "non-negative",
	}
	for line, want := range bad {
		if _, err := parseLine(line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseLine(%q) error %v, want one containing %q", line, err, want)
		}
	}
}
