package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestUserProgramSpeaksProtocol2 builds examples/duktape, the program docs/bridge.md teaches ("Without the
// harness"), and measures it as its README says: every case is measured beside the ref of protocol 2, a compare of
// the program against its own --slowdown gives the slowed one the busy work the A/B proof needs, on the crossing
// cases only, and check passes it without a note of an older protocol (and with one as a protocol 1 program). It asserts what was printed and recorded, not the verdict: whether a
// slowdown is found on a noisy machine is measured by scripts/measure-userprog.
func TestUserProgramSpeaksProtocol2(t *testing.T) {
	testenv.Require(t, "cc", "apt-get install gcc (scripts/setup does it)")
	requireFile(t, "/usr/include/duktape.h", "apt-get install duktape-dev (scripts/setup does it)")
	cfg := copyExample(t, "duktape")
	dir := filepath.Dir(cfg)
	out := filepath.Join(dir, "compare")
	stdout, stderr, code := run(t, "compare", localName(), "duktape", "duktape:slowdown=0.25", "--config", cfg, "--runs", "2",
		"--min-time", "2ms", "--out", out, "-q")
	if code != 0 && code != exitRegressed {
		t.Fatalf("compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
	a := readArtifact(t, filepath.Join(out, "a-"+localName()+"-duktape.json"))
	b := readArtifact(t, filepath.Join(out, "b-"+localName()+"-duktape-slowdown0.25.json"))
	for _, art := range []*artifact.Artifact{a, b} {
		if !art.Complete || len(art.Cases) != 3 || len(art.Processes) != 2 {
			t.Fatalf("%s: complete=%v, %d cases, %d processes, failures %+v", art.Label(), art.Complete, len(art.Cases), len(art.Processes), art.Failures)
		}
		for _, p := range art.Processes {
			if p.Protocol != 2 {
				t.Errorf("%s: process %d spoke protocol %d, want 2", art.Label(), p.Seq, p.Protocol)
			}
		}
		for _, c := range art.Cases {
			for _, p := range c.Processes {
				if c.Name != cases.RefCase && len(p.RefSamplesNs) != len(p.SamplesNs) {
					t.Errorf("%s %s: %d ref samples for %d samples: want one beside each (--ref)", art.Label(), c.Name, len(p.RefSamplesNs), len(p.SamplesNs))
				}
				busy := c.Crossing && art == b
				if (p.SlowdownNs > 0) != busy || (busy && !(p.SlowdownBaseNs > 0)) {
					t.Errorf("%s %s: slowdown %v ns over %v ns: want busy work on the slowed program's crossings only", art.Label(), c.Name, p.SlowdownNs, p.SlowdownBaseNs)
				}
			}
		}
	}
	if !strings.Contains(stdout, "script_to_host_scalar") || !strings.Contains(stdout, "callback") {
		t.Errorf("compare printed no paired comparison of the cases:\n%s", stdout)
	}
	stdout, stderr, code = run(t, "check", filepath.Join(dir, "duktape-bench"))
	if code != 0 || !strings.Contains(stdout, "speaks the protocol") || strings.Contains(stdout, "protocol 1") {
		t.Errorf("check of the example: exit %d, want it to pass without a note of an older protocol\n%s%s", code, stdout, stderr)
	}
	// The same program as a protocol 1 program runs passes too, with a note of what its version costs.
	stdout, stderr, code = run(t, "check", "bash", filepath.Join("testdata", "protocol1.sh"), filepath.Join(dir, "duktape-bench"))
	if code != 0 || !strings.Contains(stdout, "note: speaks protocol 1") {
		t.Errorf("check of the example as a protocol 1 program: exit %d, want it to pass with a note of its version\n%s%s", code, stdout, stderr)
	}
}
