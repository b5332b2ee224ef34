package config

import (
	"math"
	"strings"
	"testing"
)

// configSeeds are a good config and bad ones: out-of-range, non-finite and mistyped values.
var configSeeds = []string{
	`[defaults]
samples = 5
min_time = "10ms"
[quickjs]
src = "../quickjs"
[bridges.mine]
build = "make"
binary = "out/bench"
[targets.board]
kind = "ssh"
host = "root@192.168.1.20:22"
toolchain = "armv7"
run_prefix = "taskset -c 1"
[gate]
alpha = 0.01
min_effect = 0.2
metric = "time"
[[gate.guards]]
case = "callback"
max_ratio_to_ref = 3.0
`,
	"[gate]\nalpha = nan\n", "[gate]\nmin_effect = inf\n", "[gate]\nalpha = -inf\ninstructions_threshold = nan\n",
	"[gate.cases.callback]\nmin_effect = 1e309\n", "[[gate.guards]]\ncase = \"callback\"\nmax_ratio_to_ref = nan\n",
	"[targets.\"../../x\"]\nkind = \"ssh\"\n", "[bridges.\"../up\"]\nbinary = \"b\"\n", "[bridges.\"a/b\"]\nbinary = \"../../etc/passwd\"\n",
	"[targets.t]\nkind = \"ssh\"\nrun_prefix = \"true;touch${IFS}/tmp/x\"\n", "[targets.t]\nkind = \"local\"\nrun_prefix = \"$(reboot)\"\n",
	"[defaults]\nsamples = -1\nmin_time = \"-5s\"\n", "[defaults]\nsamples = 9223372036854775807\n", "[unknown]\nx = 1\n",
	"[targets.t]\nkind = \"adb\"\nserial = \"\x1b]0;t\x07\"\n", "a = \"unterminated\n", "\xff\xfe",
}

// FuzzParse: any text loads as a config or gets errors that name the file and a line; a loaded config has gate
// thresholds that are finite and in range, and target names a path cannot escape with.
func FuzzParse(f *testing.F) {
	for _, s := range configSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := Parse("bench-bridge.toml", text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "bench-bridge.toml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		g := c.Gate
		for name, v := range map[string]float64{"alpha": g.Alpha, "min_effect": g.MinEffect, "instructions_threshold": g.InstructionsThreshold} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("gate.%s = %v loaded", name, v)
			}
		}
		if g.Alpha >= 1 {
			t.Fatalf("gate.alpha = %v loaded", g.Alpha)
		}
		for _, gd := range g.Guards {
			if !(gd.MaxRatioToRef > 0) || math.IsInf(gd.MaxRatioToRef, 0) {
				t.Fatalf("guard %+v loaded", gd)
			}
		}
		for name := range c.Targets {
			if !NamePattern.MatchString(name) || strings.Contains(name, "/") {
				t.Fatalf("target name %q loaded", name)
			}
		}
		for name := range c.Bridges {
			if _, err := c.Bridge(name); err == nil && (!NamePattern.MatchString(name) || strings.Contains(name, "/")) {
				t.Fatalf("bridge name %q usable", name)
			}
		}
		if c.Defaults.Samples < 0 || c.Defaults.MinTime.Duration < 0 {
			t.Fatalf("defaults %+v loaded", c.Defaults)
		}
	})
}
