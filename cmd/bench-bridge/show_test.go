package main

import (
	"strings"
	"testing"
)

// show of artifacts from two devices says so in one line and prints no p-value: only ×ref compares.
func TestShowAcrossDevices(t *testing.T) {
	a, b := "../../reports/testdata/json.json", "../../reports/testdata/arm-emulated.json"
	stdout, stderr, code := run(t, "show", a, b)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := "warning: " + a + " and " + b + " come from different CPUs (Test CPU, ARMv7 Processor rev 10 (v7l))"
	if strings.Count(stdout, "come from different") != 1 || !strings.Contains(stdout, want) {
		t.Errorf("want one warning line %q:\n%s", want, stdout)
	}
	if strings.Contains(stdout, "p=") || strings.Contains(stdout, "±0%") {
		t.Errorf("a p-value or a ±0%% interval across devices:\n%s", stdout)
	}
	if !strings.Contains(stdout, "json webos (emulated) ns/op") {
		t.Errorf("the emulated artifact is not marked next to its numbers:\n%s", stdout)
	}
}
