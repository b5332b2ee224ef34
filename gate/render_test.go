package gate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/internal/fakeart"
)

func TestRender(t *testing.T) {
	o := analysis.Options{Guards: []analysis.Guard{{Case: "callback", MaxRatioToRef: 100}}}.WithDefaults()
	slow := fakeart.Scaled(fakeart.Base, map[string]float64{"callback": 1.3})
	r, err := analysis.Judge(fakeart.Artifact(1, 0.02, fakeart.Base), fakeart.Artifact(2, 0.02, slow), "b.json", "c.json", o)
	if err != nil {
		t.Fatal(err)
	}
	report := &Report{Results: []*analysis.Result{r}, Notes: []analysis.Warning{}}
	out := renderedWith(t, report, map[string][]string{
		"text":     {"json linux: b.json -> c.json", "callback", "REGRESSED", "guard callback over ref_js_loop at most 100", "gate: 1 regressed: json linux: callback"},
		"markdown": {"## ❌ gate: 1 regressed", "| `callback` |", "**REGRESSED**", "- guard callback"},
		"json":     {`"verdict": "regressed"`, `"regressions": [`},
	})
	if !json.Valid([]byte(out["json"])) {
		t.Errorf("invalid json:\n%s", out["json"])
	}
	if err := Render(&bytes.Buffer{}, report, "yaml"); err == nil {
		t.Error("want an error for an unknown format")
	}
}

// The allocation gate's text names its unit and shows the change in allocations; its JSON stays valid with a
// baseline of 0.
func TestRenderAllocations(t *testing.T) {
	r := &analysis.Result{Label: "json linux", Baseline: "b.json", Current: "c.json", Metric: analysis.Allocations,
		Threshold: 0.5, Cases: []analysis.CaseResult{
			{Case: "script_to_host_scalar", Verdict: analysis.Regressed, Baseline: 0, Current: 1, Change: 1, Threshold: 0.5},
			{Case: "callback", Verdict: analysis.Same, Baseline: 21, Current: 23, Change: 2, Threshold: 2},
		}}
	out := renderedWith(t, &Report{Results: []*analysis.Result{r}, Notes: []analysis.Warning{}}, map[string][]string{
		"text": {"allocations per op, engine and host, threshold +0.5 per op", "baseline allocs/op", "+1", "+2"},
		"json": {`"metric": "allocations"`},
	})
	if !json.Valid([]byte(out["json"])) {
		t.Errorf("invalid json:\n%s", out["json"])
	}
}

// The report marks the emulated side, and only it, and says how the origins differ.
func TestRenderNamesDifferentOriginsAndEmulation(t *testing.T) {
	b, c := fakeart.Artifact(1, 0.02, fakeart.Base), fakeart.Artifact(2, 0.02, fakeart.Base)
	b.Device.CPUModel, c.Device.CPUModel = "Intel Xeon Processor", "AMD EPYC 7B13"
	c.Device.Emulated, c.Device.EmulatedReason = true, "arm program on an x86_64 kernel"
	r, err := analysis.Judge(b, c, "A.json", "B.json", analysis.Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	want := "warning: A.json and B.json come from different CPUs (Intel Xeon Processor, AMD EPYC 7B13), emulation " +
		"(native, emulated: arm program on an x86_64 kernel): comparing ×ref only"
	out := renderedWith(t, &Report{Results: []*analysis.Result{r}, Notes: []analysis.Warning{}}, map[string][]string{
		"text":     {"json linux: A.json -> B.json [emulated: arm program on an x86_64 kernel] (", "current ×ref (emulated)", want},
		"markdown": {"\nA.json -> B.json [emulated: arm program on an x86_64 kernel] (", "| current ×ref (emulated) |", "- " + want},
		"json":     {`"current_emulated": "emulated: arm program on an x86_64 kernel"`},
	})
	for format, text := range out {
		if strings.Contains(text, "baseline ×ref (emulated)") || strings.Contains(text, "baseline_emulated") {
			t.Errorf("%s: the native baseline is marked emulated:\n%s", format, text)
		}
	}
}

// renderedWith renders report in each format of want, checks that the output holds each of want's strings, and
// returns the outputs by format.
func renderedWith(t *testing.T, report *Report, want map[string][]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for format, strs := range want {
		var buf bytes.Buffer
		if err := Render(&buf, report, format); err != nil {
			t.Fatal(err)
		}
		for _, w := range strs {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s output lacks %q:\n%s", format, w, buf.String())
			}
		}
		out[format] = buf.String()
	}
	return out
}
