package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEachTargetHasItsOwnHelp: a target's --help is its own (not the root's), with the flags of its kind.
func TestEachTargetHasItsOwnHelp(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "bench-bridge.toml")
	os.WriteFile(cfg, []byte("[targets.board]\nkind = \"ssh\"\nhost = \"root@192.0.2.1\"\n"), 0o644)
	root, _, _ := run(t, "--help")
	tests := []struct {
		args        []string
		want, avoid []string
	}{
		{[]string{"linux", "--help"}, []string{"bench-bridge linux [TARGET...]", "--cases", "--bridge", "--codec"}, []string{"--serial", "--host"}},
		{[]string{"android", "--help"}, []string{"bench-bridge android [TARGET...]", "--serial"}, []string{"--known-hosts"}},
		{[]string{"webos", "--help"}, []string{"--host", "--known-hosts", "--accept-host-key"}, []string{"--serial"}},
		{[]string{"--config", cfg, "board", "--help"}, []string{"bench-bridge board [TARGET...]", "the config's target board", "--host"}, []string{"--serial"}},
		{[]string{"floor", "--help"}, []string{"bench-bridge floor TARGET...", "--cases"}, []string{"--bridge"}},
	}
	for _, tt := range tests {
		stdout, stderr, code := run(t, tt.args...)
		if code != 0 || stdout == root {
			t.Errorf("%v: exit %d, the root's help: %v\n%s", tt.args, code, stdout == root, stderr)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: no %q in\n%s", tt.args, w, stdout)
			}
		}
		for _, a := range tt.avoid {
			if strings.Contains(stdout, a) {
				t.Errorf("%v: %q does not apply, yet is in\n%s", tt.args, a, stdout)
			}
		}
	}
}
