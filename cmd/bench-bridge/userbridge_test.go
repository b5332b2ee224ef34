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
	requireCC(t)
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
build = "mkdir -p bin && $CC $CFLAGS -I$BENCH_BRIDGE_QUICKJS_SRC -I$BENCH_BRIDGE_HARNESS $BENCH_BRIDGE_HARNESS/*.c mine.c $BENCH_BRIDGE_QUICKJS_OBJS $LDFLAGS -o bin/mine"
binary = "bin/mine"
`), 0o644)
	stdout, stderr, code := run(t, localName(), "--config", cfg, "--bridge", "mine", "--cases", "script_to_host_scalar", "--runs", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// A run of some of the cases says so in its default name: it must not overwrite a full run's linux-mine.json.
	files, _ := filepath.Glob(filepath.Join(dir, "out", localName()+"-mine-subset-*.json"))
	if len(files) != 1 {
		entries, _ := os.ReadDir(filepath.Join(dir, "out"))
		t.Fatalf("want one %s-mine-subset-HASH.json, have %v", localName(), entries)
	}
	a := readArtifact(t, files[0])
	if a.Codec != "mine" || a.Settings.MinTimeNs != 2e6 || a.Settings.Samples != 4 || len(a.Cases) != 2 || len(a.Case("script_to_host_scalar").Processes[0].SamplesNs) != 4 {
		t.Fatalf("artifact %+v", a)
	}
	_, stderr, code = run(t, localName(), "--config", cfg, "--bridge", "yours")
	if code != 1 || !strings.Contains(stderr, "no bridges.yours in the config ("+cfg+")") {
		t.Fatalf("unknown bridge: exit %d, %s", code, stderr)
	}
}

// TestUserBridgeBinaryBesideTheConfig: a prebuilt binary named without a folder is the one beside the config, run by
// its path, not a command looked up in $PATH; one that is not executable, or missing, is refused by name.
func TestUserBridgeBinaryBesideTheConfig(t *testing.T) {
	testenv.Require(t, "cc", "apt-get install gcc (scripts/setup does it)")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bench-bridge.toml")
	os.WriteFile(cfg, []byte("[bridges.pre]\nbinary = \"prog\"\n\n[bridges.plain]\nbinary = \"notexec\"\n\n[bridges.gone]\nbinary = \"nothing\"\n"), 0o644)
	protocolScript(t, filepath.Join(dir, "prog")) // "prog" is not on $PATH
	os.WriteFile(filepath.Join(dir, "notexec"), []byte("#!/bin/sh\n"), 0o644)
	out := filepath.Join(dir, "pre.json")
	t.Setenv("BENCH_BRIDGE_CACHE", t.TempDir()) // an empty cache: a prebuilt program needs no QuickJS
	stdout, stderr, code := run(t, localName(), "--config", cfg, "--bridge", "pre", "--cases", "script_to_host_scalar", "--runs", "1", "--samples", "4", "--out", out)
	if code != 0 || strings.Contains(stderr, "QuickJS") {
		t.Fatalf("prebuilt bridge: exit %d (QuickJS is neither fetched nor built for it)\n%s\n%s", code, stdout, stderr)
	}
	if a := readArtifact(t, out); len(a.Cases) != 2 || a.Meta["engine"] != "shell 1" || a.Device.QuickJS != "" {
		t.Fatalf("prebuilt bridge: %d cases, meta %v, quickjs %q: want its meta lines and no QuickJS version (it reports none)", len(a.Cases), a.Meta, a.Device.QuickJS)
	}
	for name, want := range map[string]string{
		"plain": filepath.Join(dir, "notexec") + " is not executable",
		"gone":  "no binary at " + filepath.Join(dir, "nothing"),
	} {
		_, stderr, code = run(t, localName(), "--config", cfg, "--bridge", name, "--cases", "script_to_host_scalar")
		if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "$PATH") {
			t.Errorf("--bridge %s: exit %d, %s; want %q", name, code, stderr, want)
		}
	}
	_, stderr, code = run(t, localName(), "--config", cfg, "--bridge", "pre", "--codec", "binary")
	if code != 1 || !strings.Contains(stderr, "--codec binary and --bridge pre") {
		t.Errorf("--codec with --bridge: exit %d, %s", code, stderr)
	}
}

// TestBrokenBridgeBlocksOnlyItsCommands: a config whose bridge entry is wrong still serves every command that does
// not use that bridge; the one that does names each problem with its line.
func TestBrokenBridgeBlocksOnlyItsCommands(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "bench-bridge.toml")
	os.WriteFile(cfg, []byte("[targets.board]\nkind = \"local\"\n\n[bridges.bad]\nbuild = \"make\"\nbinray = \"x\"\n"), 0o644)
	if stdout, stderr, code := run(t, "targets", "--config", cfg); code != 0 || !strings.Contains(stdout, "board") {
		t.Fatalf("targets with a broken bridge in the config: exit %d\n%s%s", code, stdout, stderr)
	}
	_, stderr, code := run(t, localName(), "--config", cfg, "--bridge", "bad")
	if code != 1 || !strings.Contains(stderr, cfg+":4: bridges.bad needs binary") || !strings.Contains(stderr, cfg+":6: unknown key bridges.bad.binray") {
		t.Fatalf("--bridge bad: exit %d, %s", code, stderr)
	}
}

// protocolScript writes a shell script at path that speaks protocol 1 for ref_js_loop and script_to_host_scalar with
// the same samples every run: a prebuilt bridge that needs neither a compiler nor QuickJS, and whose numbers never
// move.
func protocolScript(t *testing.T, path string) {
	t.Helper()
	script := `#!/bin/sh
if [ "$1" = list ]; then echo ref_js_loop; echo script_to_host_scalar; exit 0; fi
shift # run
cases=
while [ $# -gt 0 ]; do case $1 in
--samples|--min-time-ns|--warmup-ns) shift 2;;
--*) echo "unknown flag: $1" >&2; exit 2;; # protocol 1 knows no --ref
*) cases="$cases $1"; shift;;
esac; done
echo bench-bridge-protocol 1
echo meta engine shell 1
echo timer_overhead_ns 1
for c in $cases; do
  echo begin $c; echo calibrated $c 10; i=0
  while [ $i -lt 4 ]; do echo sample $c 10 1000; i=$((i+1)); done
  echo end $c
done
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}
