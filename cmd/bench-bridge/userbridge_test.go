package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestUserBridgeFromConfig declares a bridge of the user's in bench-bridge.toml by its build command and binary and
// measures it. The "user's bridge" is floor.c compiled by the user's own command line with the environment
// bench-bridge gives the build command, which is what a real user's bridge would use.
func TestUserBridgeFromConfig(t *testing.T) {
	testenv.Require(t, "cc", "apt-get install gcc (scripts/setup does it)")
	dir := t.TempDir()
	src, _ := benchbridge.CSources.ReadFile(benchbridge.Floor)
	os.WriteFile(filepath.Join(dir, "mine.c"), src, 0o644)
	cfg := filepath.Join(dir, "bench-bridge.toml")
	os.WriteFile(cfg, []byte(`
[defaults]
samples = 4
min_time = "2ms"
out_dir = "out"

[bridges.mine]
build = "mkdir -p bin && $CC $CFLAGS -I$BENCH_BRIDGE_QUICKJS_SRC -I$BENCH_BRIDGE_HARNESS $BENCH_BRIDGE_HARNESS/harness.c mine.c $BENCH_BRIDGE_QUICKJS_OBJS $LDFLAGS -o bin/mine"
binary = "bin/mine"
`), 0o644)
	stdout, stderr, code := run(t, localName(), "--config", cfg, "--bridge", "mine", "--cases", "script_to_host_scalar")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	a := readArtifact(t, filepath.Join(dir, "out", localName()+"-mine.json"))
	if a.Codec != "mine" || a.Settings.MinTimeNs != 2e6 || a.Settings.Samples != 4 || len(a.Cases) != 2 || len(a.Case("script_to_host_scalar").Processes[0].SamplesNs) != 4 {
		t.Fatalf("artifact %+v", a)
	}
	_, stderr, code = run(t, localName(), "--config", cfg, "--bridge", "yours")
	if code != 1 || !strings.Contains(stderr, "no bridges.yours in the config ("+cfg+")") {
		t.Fatalf("unknown bridge: exit %d, %s", code, stderr)
	}
}
